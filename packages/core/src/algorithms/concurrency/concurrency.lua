-- Concurrency: mirrors algorithms/concurrency/model.ts. The key is a sorted set of lease ids
-- (the operation tokens) scored by expiry in epoch ms; a lease is live while its expiry > now.
-- p = { limit, lease_ttl_ms }. The step only reads: expired leases are trimmed when writing.
local function trim(key, now) redis.call('ZREMRANGEBYSCORE', key, '-inf', num(now)) end

ALGOS['concurrency'] = { fetch = false,
  step = function(key, p, cost, now, token)
    local limit, ttl = p[1], p[2]
    local live = redis.call('ZCOUNT', key, '(' .. num(now), '+inf')
    local latest = now
    local top = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
    if top[2] and tonumber(top[2]) > now then latest = tonumber(top[2]) end
    if live >= limit then
      if limit == 0 then return 0, 0, latest - now, INFINITE, 0 end
      local first = redis.call('ZRANGEBYSCORE', key, '(' .. num(now), '+inf', 'WITHSCORES', 'LIMIT', live - limit, 1)
      return 0, 0, latest - now, tonumber(first[2]) - now, 0
    end
    local expiry = now + ttl
    if expiry > latest then latest = expiry end
    return 1, limit - live - 1, latest - now, 0, 0, latest - now, { now, expiry, token }
  end,
  commit = function(key, lease, ttl_ms)
    trim(key, lease[1])
    redis.call('ZADD', key, num(lease[2]), lease[3])
    redis.call('PEXPIRE', key, ttl_ms)
  end,
  release = function(key, p, now, token)
    trim(key, now)
    redis.call('ZREM', key, token)
  end,
}
