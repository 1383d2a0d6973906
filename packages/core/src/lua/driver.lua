-- Runs a batch of operations, in order, atomically.
-- ARGV: ttl_slack_ms (added to the TTL of keys written on a client's clock), rule_count, then per rule:
--   limit_count, then per limit: algorithm name (its ALGOS entry), param_count, then that many params
--   (the TypeScript `luaArgs`: the step's `p`);
--   then shape_count, then per shape: kind ('c' consume | 'p' peek | 'r' reset | 'l' release the lease
--   `token`, then peek | 'f' refund), now_ms ('' = Redis TIME), cost, rule (its 1-based index among the
--   rules above), and 't' when its ops carry a token, else '';
--   then op_count, then per op: its shape (1-based index among the shapes above), then its token when
--   the shape says so (a string unique to the op, for algorithms that store per-request members).
-- A rule is sent once per batch however many of its ops the batch carries, and its params parsed
-- once; so is a shape: the ops of a batch mostly share their kind, clock, cost and rule, and each
-- then costs Redis one argument instead of five.
-- KEYS, per op: when its rule has limits whose state is a string (every algorithm without
-- `fetch = false`), first the one key holding all of them; then one key per limit keeping a
-- sorted set, in the order of the limits. All of an op's keys share its identity's hash tag.
-- A packed key holds the string limits' states in the order of the limits, each at a fixed place
-- (a single string limit's value is its state alone), and expires with its longest-lived limit:
-- a state past its own TTL stays, which each algorithm reads as no state.
-- Reply: the call id (the last ARGV, read nowhere else), then per op and limit: its verdict is
-- delay_ms (>= 0) when allowed, else -2 - retry_ms (retry_ms -1 = never): every step allows with
-- no retry and refuses with no delay. A verdict of 0 (allowed, no delay) is left out: the limit
-- replies remaining, reset_ms; any other, -1 - remaining, reset_ms, verdict. An op commits when it is a
-- consume and every one of its limits allows it (all or nothing): the store tells that from the
-- verdicts. Its packed key is then read once and written once.
-- A refund writes what each limit's `refund` leaves, then reports a peek (cost 1) on it.
-- The call's id follows as the last ARGV: lua/script.ts runs the driver as a function and puts
-- the id in front of its reply.
local slack = tonumber(ARGV[1])
local NOTHING = {}

-- Parses the rules starting at ARGV[a]; returns them and the index of the first ARGV after them.
-- A rule is { algos, params, slot = { [limit] = its place in the packed key }, own = { [limit] =
-- its key's offset among the op's keys }, widths = { [place] = its state's length, total }, packed =
-- number of string limits, key_count }.
local function read_rules(a)
  local rules = {}
  for r = 1, tonumber(ARGV[a]) do
    local algos, params, slot, own, widths, packed = {}, {}, {}, {}, { total = 0 }, 0
    a = a + 1
    local n = tonumber(ARGV[a])
    for i = 1, n do
      local algo, count = ALGOS[ARGV[a + 1]], tonumber(ARGV[a + 2])
      local p = {}
      for j = 1, count do p[j] = tonumber(ARGV[a + 2 + j]) end
      algos[i], params[i] = algo, p
      if algo.fetch ~= false then
        packed = packed + 1
        slot[i], widths[packed] = packed, algo.width
        widths.total = widths.total + algo.width
      end
      a = a + 2 + count
    end
    local offset = 0
    if packed > 0 then offset = 1 end
    for i = 1, n do
      if not slot[i] then
        own[i] = offset
        offset = offset + 1
      end
    end
    -- Indexed by the text ops name it by, so no op parses it.
    rules[tostring(r)] = {
      algos = algos, params = params, slot = slot, own = own, widths = widths, packed = packed, key_count = offset,
    }
  end
  return rules, a + 1
end

-- A packed value of several string limits holds their states one after the other, each its
-- algorithm's `width` long: states are binary (see the prelude), so no separator could be told
-- from their bytes, and fixed places cost less than lengths to read. A limit without a state
-- holds `width` bytes 0xFF (NaN doubles, which no step writes).
local sub = string.sub
local none = setmetatable({}, {
  __index = function(fillers, width)
    fillers[width] = string.rep('\255', width)
    return fillers[width]
  end,
})

-- The states of a packed value, one per limit (false: none), into `slots`. A value of another
-- length (not written by this script) reads as no state.
local function unpack_slots(value, widths, count, slots)
  local from = 1
  if #value ~= widths.total then
    for s = 1, count do slots[s] = false end
    return slots
  end
  for s = 1, count do
    local to = from + widths[s]
    local state = sub(value, from, to - 1)
    slots[s] = state ~= none[widths[s]] and state
    from = to
  end
  return slots
end

-- Writes the packed key: the slots given a new state (with its TTL; <= 0 clears it) and the rest
-- as they were, kept as long as its longest-lived limit.
local function write_packed(key, widths, count, old, fresh, fresh_ttl)
  if count == 1 then
    -- Unchanged: nothing to write.
    if not fresh[1] then return end
    if fresh_ttl[1] > 0 then set_state(key, fresh[1], fresh_ttl[1]) else redis.call('DEL', key) end
    return
  end
  -- Joined with `..` as it goes: cheaper than table.concat for a handful of short states.
  local longest, kept, value = 0, false, ''
  for s = 1, count do
    local state = fresh[s]
    if state then
      if fresh_ttl[s] > longest then longest = fresh_ttl[s] end
      if fresh_ttl[s] <= 0 then state = none[widths[s]] end
    else
      state = old[s] or none[widths[s]]
      if old[s] then kept = true end
    end
    value = value .. state
  end
  if kept then longest = math.max(longest, redis.call('PTTL', key)) end
  if longest > 0 then
    set_state(key, value, longest)
  else
    redis.call('DEL', key)
  end
end

-- The shapes of the batch's ops, starting at ARGV[a]: { kind, now (false: Redis TIME), cost, rule,
-- token (true: each op carries one) }, indexed by the text ops name them by; and the index of the
-- first ARGV after them.
local function read_shapes(rules, a)
  local shapes = {}
  for s = 1, tonumber(ARGV[a]) do
    shapes[tostring(s)] = {
      kind = ARGV[a + 1],
      now = ARGV[a + 2] ~= '' and tonumber(ARGV[a + 2]),
      cost = tonumber(ARGV[a + 3]),
      rule = rules[ARGV[a + 4]],
      token = ARGV[a + 5] == 't',
    }
    a = a + 5
  end
  return shapes, a + 1
end

-- Redis keeps what a script wrote before one of its commands failed. So before anything is
-- written, a batch of several ops (or a refund or release, which write limit by limit) reads
-- every key as its algorithm will: a key of another type fails the whole batch with WRONGTYPE
-- while nothing is written yet, never one op after another op was charged.
-- Returns the packed values read, by key index, for the ops to start from; a key that an earlier
-- op of the batch may have written is left out (nil), to be read again.
local function check_types(shapes, a)
  local strings, at, seen, k = {}, {}, {}, 1
  for _ = 1, tonumber(ARGV[a]) do
    local shape = shapes[ARGV[a + 1]]
    a = a + 1
    if shape.token then a = a + 1 end
    local rule = shape.rule
    local sorted_from = k
    if rule.packed > 0 then
      local key = KEYS[k]
      strings[#strings + 1] = key
      if not seen[key] then
        seen[key] = true
        at[#strings] = k
      end
      sorted_from = k + 1
    end
    for key = sorted_from, k + rule.key_count - 1 do redis.call('ZCARD', KEYS[key]) end
    k = k + rule.key_count
  end
  local fetched = {}
  -- In chunks: unpack() of a whole large batch would overflow Lua's stack.
  for from = 1, #strings, 1000 do
    local to = math.min(#strings, from + 999)
    local values = redis.call('MGET', unpack(strings, from, to))
    local missed = {}
    for i = from, to do
      local value = values[i - from + 1]
      if not value then missed[#missed + 1] = strings[i] end
      if at[i] then fetched[at[i]] = value end
    end
    if #missed > 0 and redis.call('EXISTS', unpack(missed)) > 0 then
      for _, key in ipairs(missed) do redis.call('GET', key) end
    end
  end
  return fetched
end

local function write(algo, key, state, ttl)
  if ttl > 0 then (algo.commit or set_state)(key, state, ttl) else redis.call('DEL', key) end
end

local server_now
local function read_server_now()
  local t = redis.call('TIME')
  server_now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Writes of sorted-set limits an op commits once every limit allowed it, and the old and new
-- states of its packed key, kept in arrays reused from op to op.
local pending_algo, pending_key, pending_state, pending_ttl = {}, {}, {}, {}
local old_slots, fresh, fresh_ttl = {}, {}, {}

local rules, a = read_rules(2)
local shapes
shapes, a = read_shapes(rules, a)
local first_kind = shapes[ARGV[a + 1]].kind
local fetched = NOTHING
if tonumber(ARGV[a]) > 1 or first_kind == 'f' or first_kind == 'l' then fetched = check_types(shapes, a) end
local reply = { ARGV[#ARGV] }
local r, k = 1, 1
for _ = 1, tonumber(ARGV[a]) do
  local shape = shapes[ARGV[a + 1]]
  local kind, cost, rule, token = shape.kind, shape.cost, shape.rule, ''
  a = a + 1
  if shape.token then
    token = ARGV[a + 1]
    a = a + 1
  end
  local now, ttl_extra = shape.now, slack
  if not now then
    if not server_now then read_server_now() end
    now, ttl_extra = server_now, 0
  end
  local algos, params, slot, own, packed = rule.algos, rule.params, rule.slot, rule.own, rule.packed
  local packed_key = KEYS[k]
  local old = NOTHING
  if kind == 'r' then
    redis.call('DEL', unpack(KEYS, k, k + rule.key_count - 1))
  elseif packed > 0 then
    local value = fetched[k]
    if value == nil then value = redis.call('GET', packed_key) end
    if packed == 1 then
      old_slots[1] = value
      old = old_slots
    elseif value then
      old = unpack_slots(value, rule.widths, packed, old_slots)
    end
  end
  for s = 1, packed do fresh[s] = false end
  local refunded_any = false
  local all_allowed, writes = true, 0
  for i = 1, #algos do
    local algo, p, s = algos[i], params[i], slot[i]
    local key, stored = packed_key, false
    if s then stored = old[s] or false else key = KEYS[k + own[i]] end
    if kind == 'l' and algo.release then algo.release(key, p, now, token) end
    local step_cost = cost
    if kind == 'f' then
      step_cost = 1
      if algo.refund then
        local refunded, refunded_ttl = algo.refund(key, p, cost, now, stored)
        if refunded then
          refunded_ttl = refunded_ttl + ttl_extra
          if s then
            fresh[s], fresh_ttl[s], refunded_any = refunded, refunded_ttl, true
          else
            write(algo, key, refunded, refunded_ttl)
          end
          stored = refunded_ttl > 0 and refunded
        end
      end
    end
    local allowed, remaining, reset, retry, delay, state, ttl = algo.step(key, p, step_cost, now, token, stored)
    -- Allowed with no delay (nearly every limit of nearly every decision): remaining, reset_ms.
    -- Otherwise -1 - remaining, reset_ms, verdict.
    local verdict = delay
    if allowed == 0 then verdict = -2 - retry end
    if verdict ~= 0 then remaining = -1 - remaining end
    -- Counts near 2^53 go back as text: node-redis reads integer replies that large off by a few.
    if remaining > 4503599627370496 or remaining < -4503599627370496 then remaining = format('%d', remaining) end
    reply[r + 1], reply[r + 2] = remaining, reset
    r = r + 2
    if verdict ~= 0 then
      r = r + 1
      reply[r] = verdict
    end
    if allowed == 0 then
      all_allowed = false
    else
      if kind == 'c' and state then
        if s then
          fresh[s], fresh_ttl[s] = state, ttl + ttl_extra
        else
          writes = writes + 1
          pending_algo[writes], pending_key[writes], pending_state[writes], pending_ttl[writes] = algo, key, state, ttl
        end
      end
    end
  end
  if kind == 'c' and all_allowed then
    for w = 1, writes do
      write(pending_algo[w], pending_key[w], pending_state[w], pending_ttl[w] + ttl_extra)
    end
    if packed > 0 then write_packed(packed_key, rule.widths, packed, old, fresh, fresh_ttl) end
  elseif refunded_any then
    write_packed(packed_key, rule.widths, packed, old, fresh, fresh_ttl)
  end
  k = k + rule.key_count
end
return reply
