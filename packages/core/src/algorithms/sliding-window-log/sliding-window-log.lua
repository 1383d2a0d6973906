-- Sliding window log: mirrors algorithms/sliding-window-log/model.ts.
-- p = { limit, window_ms }; state: a sorted set, one member per admitted unit scored by its time.
-- Steps only read; the commit trims what slid out, then removes (refund) or adds members.
local function live(key, floor)
  return redis.call('ZCOUNT', key, '(' .. num(floor), '+inf')
end

-- The score of the n-th oldest live member (n >= 1).
local function nth(key, floor, n)
  return tonumber(redis.call('ZRANGEBYSCORE', key, '(' .. num(floor), '+inf', 'WITHSCORES', 'LIMIT', n - 1, 1)[2])
end

-- A refund of a charge removes only the members it added (its last `cost` of them) still live.
local function refund_charged(key, window, cost, now, floor, charge)
  local drop, dropped = {}, {}
  for i = math.max(0, charge.cost - cost), charge.cost - 1 do
    local member = charge.token
    if i > 0 then member = member .. ':' .. i end
    local score = redis.call('ZSCORE', key, member)
    if score and tonumber(score) > floor then
      drop[#drop + 1] = member
      dropped[member] = true
    end
  end
  if #drop == 0 then return nil end
  -- The newest member left decides how long the log is kept.
  local newest = redis.call('ZREVRANGEBYSCORE', key, '+inf', '(' .. num(floor), 'WITHSCORES', 'LIMIT', 0, #drop + 1)
  local ttl = 0
  for i = 1, #newest, 2 do
    if not dropped[newest[i]] then
      ttl = tonumber(newest[i + 1]) + window - now
      break
    end
  end
  return ttl, { floor = floor, pop = 0, add = 0, drop = drop }
end

ALGOS['sliding-window-log'] = { fetch = false, step = function(key, p, cost, now, token)
  local limit, window = p[1], p[2]
  local floor = now - window
  local count = live(key, floor)
  local newest = now
  if count > 0 then newest = tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2]) end
  if count + cost > limit then
    local retry = INFINITE
    if cost <= limit then retry = nth(key, floor, count + cost - limit) + window - now end
    local reset = 0
    if count > 0 then reset = newest + window - now end
    return 0, math.max(0, limit - count), reset, retry, 0
  end
  local reset = math.max(newest, now) + window - now
  return 1, limit - count - cost, reset, 0, 0, reset, { floor = floor, pop = 0, add = cost, at = now, token = token }
end, refund = function(key, p, cost, now, state, at, out, charge)
  local floor = now - p[2]
  local count = live(key, floor)
  if count == 0 then return nil end
  if charge then return refund_charged(key, p[2], cost, now, floor, charge) end
  local left = math.max(0, count - cost)
  local ttl = 0
  if left > 0 then ttl = nth(key, floor, left) + p[2] - now end
  return ttl, { floor = floor, pop = count - left, add = 0 }
end, penalty = function(key, p, cost, now, token)
  local limit, window = p[1], p[2]
  local floor = now - window
  -- At most `limit` entries of one time: more would change no consume's decision (see model.ts).
  local add = math.min(cost, limit)
  local count, newest = live(key, floor), now
  if count > 0 then newest = math.max(now, tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])) end
  if add == 0 and count == 0 then return 0, { floor = floor, pop = 0, add = 0 } end
  return newest + window - now, { floor = floor, pop = 0, add = add, at = now, token = token }
end, commit = function(key, s, ttl)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', num(s.floor))
  if s.pop > 0 then redis.call('ZPOPMAX', key, s.pop) end
  if s.drop then redis.call('ZREM', key, unpack(s.drop)) end
  for i = 0, s.add - 1 do
    local member = s.token
    if i > 0 then member = s.token .. ':' .. i end
    redis.call('ZADD', key, num(s.at), member)
  end
  redis.call('PEXPIRE', key, ttl)
end }
