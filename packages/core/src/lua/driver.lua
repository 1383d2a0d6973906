-- Runs a batch of operations, in order, atomically.
-- ARGV: ttl_slack_ms (added to the TTL of keys written on a client's clock), op_count, then per op:
--   kind ('c' consume | 'p' peek | 'r' reset | 'l' release the lease `token`, then peek | 'f' refund), now_ms ('' = Redis TIME), cost,
--   token (a string unique to the op, for algorithms that store per-request members; may be ''), limit_count,
--   then per limit: algorithm name followed by its params.
-- KEYS: one per limit, in the same order.
-- Reply, per op: committed (0/1), then per limit: allowed, remaining, reset_ms, retry_ms (-1 = never), delay_ms.
-- An op commits only when every one of its limits allows it (all or nothing).
-- A refund writes what each limit's `refund` leaves, then reports a peek (cost 1) on it.
local slack = tonumber(ARGV[1])

local function write(algo, key, state, ttl)
  if ttl > 0 then (algo.commit or set_state)(key, state, ttl) else redis.call('DEL', key) end
end
local server_now
local reply = {}
local a, k = 3, 1
for _ = 1, tonumber(ARGV[2]) do
  local kind, now, cost, token, n = ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2]), ARGV[a + 3], tonumber(ARGV[a + 4])
  a = a + 5
  local ttl_extra = slack
  if now == '' then
    ttl_extra = 0
    if not server_now then
      local t = redis.call('TIME')
      server_now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    end
    now = server_now
  else
    now = tonumber(now)
  end
  local head = #reply + 1
  reply[head] = 0
  local all_allowed = true
  local writes = {}
  for _ = 1, n do
    local algo = ALGOS[ARGV[a]]
    local p = {}
    for j = 1, algo.n do p[j] = tonumber(ARGV[a + j]) end
    a = a + 1 + algo.n
    local key = KEYS[k]
    k = k + 1
    if kind == 'r' then redis.call('DEL', key) end
    if kind == 'l' and algo.release then algo.release(key, p, now, token) end
    local step_cost = cost
    if kind == 'f' then
      step_cost = 1
      if algo.refund then
        local refunded, refunded_ttl = algo.refund(key, p, cost, now)
        if refunded then write(algo, key, refunded, refunded_ttl + ttl_extra) end
      end
    end
    local allowed, remaining, reset, retry, delay, state, ttl = algo.step(key, p, step_cost, now, token)
    local r = #reply
    reply[r + 1], reply[r + 2], reply[r + 3], reply[r + 4], reply[r + 5] = allowed, remaining, reset, retry, delay
    if allowed == 0 then
      all_allowed = false
    elseif state then
      writes[#writes + 1] = { algo, key, state, ttl }
    end
  end
  if kind == 'c' and all_allowed then
    for _, w in ipairs(writes) do
      write(w[1], w[2], w[3], w[4] + ttl_extra)
    end
    reply[head] = 1
  end
end
return reply
