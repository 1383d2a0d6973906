-- Runs a batch of operations, in order, atomically.
-- ARGV: ttl_slack_ms (added to the TTL of keys written on a client's clock), rule_count, then per rule:
--   limit_count, then per limit: algorithm name followed by its params;
--   then op_count, then per op: kind ('c' consume | 'p' peek | 'r' reset | 'l' release the lease `token`,
--   then peek | 'f' refund), now_ms ('' = Redis TIME), cost, token (a string unique to the op, for algorithms
--   that store per-request members; may be ''), rule (its 1-based index among the rules above).
-- A rule is sent once per batch however many of its ops the batch carries, and its params parsed once.
-- KEYS: one per limit of each op, in order.
-- Reply, per op: committed (0/1), then per limit: allowed, remaining, reset_ms, retry_ms (-1 = never), delay_ms.
-- An op commits only when every one of its limits allows it (all or nothing).
-- A refund writes what each limit's `refund` leaves, then reports a peek (cost 1) on it.
local slack = tonumber(ARGV[1])
local NOTHING = {}

-- Parses the rules starting at ARGV[a]; returns them and the index of the first ARGV after them.
-- A rule is { algos = {...}, params = {...}, fetch = true when a limit keeps string state }.
local function read_rules(a)
  local rules = {}
  for r = 1, tonumber(ARGV[a]) do
    local algos, params, fetch = {}, {}, false
    a = a + 1
    for i = 1, tonumber(ARGV[a]) do
      local algo = ALGOS[ARGV[a + 1]]
      local p = {}
      for j = 1, algo.n do p[j] = tonumber(ARGV[a + 1 + j]) end
      algos[i], params[i] = algo, p
      if algo.fetch ~= false then fetch = true end
      a = a + 1 + algo.n
    end
    rules[r] = { algos = algos, params = params, fetch = fetch }
  end
  return rules, a + 1
end

-- The stored strings of the op's keys KEYS[k .. k + n - 1], in one call. Sorted-set keys read as
-- false: the steps of those algorithms (fetch = false) read their keys themselves.
local function fetch_states(rule, k, n)
  if not rule.fetch then return NOTHING end
  if n == 1 then return { redis.call('GET', KEYS[k]) } end
  local states = redis.call('MGET', unpack(KEYS, k, k + n - 1))
  local missed
  for i = 1, n do
    if not states[i] and rule.algos[i].fetch ~= false then
      missed = missed or {}
      missed[#missed + 1] = KEYS[k + i - 1]
    end
  end
  -- MGET reads a key holding another type as absent: when a missed key exists, GET the missed keys
  -- so the op fails with WRONGTYPE before anything is written, as a lone GET would.
  if missed and redis.call('EXISTS', unpack(missed)) > 0 then
    for _, key in ipairs(missed) do redis.call('GET', key) end
  end
  return states
end

local function write(algo, key, state, ttl)
  if ttl > 0 then (algo.commit or set_state)(key, state, ttl) else redis.call('DEL', key) end
end

-- Writes an op commits once every limit allowed it, kept in reused arrays.
local pending_algo, pending_key, pending_state, pending_ttl = {}, {}, {}, {}

local server_now
local function now_ms(now)
  if now ~= '' then return tonumber(now), slack end
  if not server_now then
    local t = redis.call('TIME')
    server_now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  return server_now, 0
end

local rules, a = read_rules(2)
local reply = {}
local r, k = 0, 1
for _ = 1, tonumber(ARGV[a]) do
  local kind, cost, token, rule = ARGV[a + 1], tonumber(ARGV[a + 3]), ARGV[a + 4], rules[tonumber(ARGV[a + 5])]
  local now, ttl_extra = now_ms(ARGV[a + 2])
  a = a + 5
  local algos, params, n = rule.algos, rule.params, #rule.algos
  local states
  if kind == 'r' then
    redis.call('DEL', unpack(KEYS, k, k + n - 1))
    states = NOTHING
  else
    states = fetch_states(rule, k, n)
  end
  local head = r + 1
  reply[head] = 0
  r = head
  local all_allowed, writes = true, 0
  for i = 1, n do
    local algo, p, key, stored = algos[i], params[i], KEYS[k], states[i]
    k = k + 1
    if kind == 'l' and algo.release then algo.release(key, p, now, token) end
    local step_cost = cost
    if kind == 'f' then
      step_cost = 1
      if algo.refund then
        local refunded, refunded_ttl = algo.refund(key, p, cost, now, stored)
        if refunded then
          refunded_ttl = refunded_ttl + ttl_extra
          write(algo, key, refunded, refunded_ttl)
          stored = refunded_ttl > 0 and refunded
        end
      end
    end
    local allowed, remaining, reset, retry, delay, state, ttl = algo.step(key, p, step_cost, now, token, stored)
    reply[r + 1], reply[r + 2], reply[r + 3], reply[r + 4], reply[r + 5] = allowed, remaining, reset, retry, delay
    r = r + 5
    if allowed == 0 then
      all_allowed = false
    elseif state then
      writes = writes + 1
      pending_algo[writes], pending_key[writes], pending_state[writes], pending_ttl[writes] = algo, key, state, ttl
    end
  end
  if kind == 'c' and all_allowed then
    for w = 1, writes do
      write(pending_algo[w], pending_key[w], pending_state[w], pending_ttl[w] + ttl_extra)
    end
    reply[head] = 1
  end
end
return reply
