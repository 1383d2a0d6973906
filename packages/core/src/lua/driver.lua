-- Runs a batch of operations, in order, atomically.
-- ARGV: the header, op_count, the ops, the call id; a call of one op that carries nothing but its
-- shape (so shape 1) sends the header and the call id alone. The header is one argument: fields
-- separated by single spaces (a field may be empty), which are ttl_slack_ms (added to the TTL of
-- keys written on a client's clock), rule_count, then per rule:
--   limit_count, then per limit: algorithm name (its ALGOS entry), param_count, then that many params
--   (the TypeScript `luaArgs`: the step's `p`);
--   then shape_count, then per shape: kind ('c' consume | 'p' peek | 'r' reset | 'l' release the lease
--   `token`, then peek | 'f' refund | 'n' penalty | 's' settle a hold | 'a' consume of a group: all or
--   nothing, see the end), now_ms ('' = Redis TIME), cost, rule (its 1-based index among the
--   rules above), and flags: 't' when its ops carry a token, 'v' when they carry a cost per limit,
--   'm' (a consume) when they carry a minimum cost (see granted_cost);
--   kind 'k' blocks the key for `cost` ms (the rule's block limit, see block/block.lua), then peeks;
--   then, after the header, op_count, then per op: its shape (1-based index among the shapes above), then its token when
--   the shape says so (a string unique to the op, for algorithms that store per-request members),
--   then its minimum cost when the shape says so,
--   then for a 'g' op (a refund of a charge: its token is the charge's) the charge's time and cost,
--   for an 's' op the hold's token and time then per limit what the hold charged it, then its
--   costs per limit (the shape's cost is then unused).
-- A rule is sent once per batch however many of its ops the batch carries, and its params parsed
-- once; so is a shape: the ops of a batch mostly share their kind, clock, cost and rule, and each
-- then costs Redis one argument instead of five. A call's header is mostly the header of calls
-- before it: a function library keeps what it parsed (see read_header).
-- KEYS, per op: when its rule has limits whose state is a string (every algorithm without
-- `fetch = false`), first the one key holding all of them; then one key per limit keeping a
-- sorted set, in the order of the limits. All of an op's keys share its identity's hash tag.
-- A packed key holds the string limits' states in the order of the limits, each at a fixed place
-- (a single string limit's value is its state alone), and expires with its longest-lived limit:
-- a state past its own TTL stays, which each algorithm reads as no state.
-- Reply: the call id (the last ARGV, read nowhere else), the Redis TIME the ops decided on (0 when
-- none read it), then per op and limit: its verdict is
-- delay_ms (>= 0) when allowed, else -2 - retry_ms (retry_ms -1 = never): every step allows with
-- no retry and refuses with no delay. A verdict of 0 (allowed, no delay) is left out: the limit
-- replies remaining, reset_ms; any other, -1 - remaining, reset_ms, verdict. An op commits when it is a
-- consume and every one of its limits allows it (all or nothing): the store tells that from the
-- verdicts. Its packed key is then read once and written once.
-- A consume with a minimum cost adds, after its limits, the cost it took. A peek ('p') or reset
-- ('r') op adds, after its limits, 1 when its keys held state, else 0. A
-- reset answers for its limits what they held (a peek), then deletes its keys.
-- A refund writes what each limit's `refund` leaves, then reports a peek (cost 1) on it; a refund of
-- a charge ('g') passes each `refund` the charge, { at = ms, cost = units, token = its token }.
-- A penalty ('n') does the same with each limit's `penalty`, which charges even beyond the limit.
-- A settle ('s') of a hold (a consume charged `held` per limit at time `at` under its token)
-- releases the hold's lease, then per limit refunds the unused part of that charge, or charges the
-- excess as a penalty, and reports as a refund does.
-- The call's id follows as the last ARGV, and comes back in front of the reply.
-- This file defines run_batch(KEYS, ARGV): lua/script.ts calls it at the end of the script, or
-- registers it as the function of a library, where what is defined outside it (the parsed rules
-- among them) outlives the call.
local NOTHING = {}

-- Parses the rules starting at fields[a]; returns them and the index of the first field after them.
-- A rule is { algos, params, place = { [limit] = the index of its state's first double in the
-- packed value }, own = { [limit] = its key's offset among the op's keys }, first = { [n] = the
-- place of the n-th string limit }, size = { [n] = its number of doubles }, doubles = their total, layout =
-- the struct format of the packed value, packed = number of string limits, key_count }.
local function read_rules(fields, a)
  local rules = {}
  for r = 1, tonumber(fields[a]) do
    local algos, params, place, own, first, size, doubles, packed = {}, {}, {}, {}, {}, {}, 0, 0
    a = a + 1
    local n = tonumber(fields[a])
    for i = 1, n do
      local algo, count = ALGOS[fields[a + 1]], tonumber(fields[a + 2])
      local p = {}
      for j = 1, count do p[j] = tonumber(fields[a + 2 + j]) end
      algos[i], params[i] = algo, p
      if algo.fetch ~= false then
        packed = packed + 1
        place[i], first[packed], size[packed] = doubles + 1, doubles + 1, algo.doubles
        doubles = doubles + algo.doubles
      end
      a = a + 2 + count
    end
    local offset = 0
    if packed > 0 then offset = 1 end
    for i = 1, n do
      if not place[i] then
        own[i] = offset
        offset = offset + 1
      end
    end
    -- Indexed by the text ops name it by, so no op parses it.
    rules[tostring(r)] = {
      algos = algos, params = params, place = place, own = own, first = first, size = size, doubles = doubles,
      layout = '<' .. string.rep('d', doubles), bytes = doubles * 8, packed = packed, key_count = offset,
    }
  end
  return rules, a + 1
end

-- A packed value holds the string limits' states one after the other, each its algorithm's
-- `doubles` little-endian doubles: cut in one struct.unpack and joined in one struct.pack by the
-- rule's layout; the steps read and write them as numbers, in place (see the prelude). A limit
-- without a state has NaN (which no step writes) as its first double.
local NAN = 0 / 0

-- The doubles of a packed value of several limits, of the rule's length, a limit without a state
-- having false as its first.
local function unpack_doubles(value, rule)
  local doubles = { sunpack(rule.layout, value) }
  local first = rule.first
  for s = 1, rule.packed do
    local at = first[s]
    if doubles[at] ~= doubles[at] then doubles[at] = false end
  end
  return doubles
end

-- Writes the packed key of a rule of one string limit: its doubles in `fresh`, kept `ttl` ms (<= 0 deletes it).
local function write_lone(key, rule, fresh, ttl)
  if ttl <= 0 then
    redis.call('DEL', key)
  elseif rule.doubles == 1 then
    set_state(key, spack(rule.layout, fresh[1]), ttl)
  else
    -- Its 3 doubles at most: struct.pack ignores what its layout does not take.
    set_state(key, spack(rule.layout, fresh[1], fresh[2], fresh[3]), ttl)
  end
end

-- A lone limit's 3 doubles at most, read from its packed `value` (never NaN: it is deleted, not
-- marked, when its TTL runs out) into `lone`, a table reused from op to op; a single double in one store.
local function read_lone(value, rule, lone)
  if rule.doubles == 1 then
    lone[1] = sunpack(rule.layout, value)
  else
    lone[1], lone[2], lone[3] = sunpack(rule.layout, value)
  end
  return lone
end

-- Writes the packed key: the places given a new state in `fresh` (with its TTL in fresh_ttl;
-- <= 0 clears it) and the rest as they were in `old`, kept as long as its longest-lived limit.
local function write_packed(key, rule, old, fresh, fresh_ttl)
  local first, size, count = rule.first, rule.size, rule.packed
  if count == 1 then
    local ttl = fresh_ttl[1]
    -- Unchanged: nothing to write.
    if ttl then write_lone(key, rule, fresh, ttl) end
    return
  end
  local longest, kept = 0, false
  for s = 1, count do
    local at = first[s]
    local ttl = fresh_ttl[at]
    if ttl then
      if ttl > longest then longest = ttl end
      if ttl <= 0 then fresh[at] = NAN end
    elseif old[at] then
      kept = true
      for d = at, at + size[s] - 1 do fresh[d] = old[d] end
    else
      fresh[at] = NAN
      for d = at + 1, at + size[s] - 1 do fresh[d] = 0 end
    end
  end
  if kept then
    -- -1: the key has no expiry (a limit's state kept FOREVER).
    local pttl = redis.call('PTTL', key)
    if pttl == -1 then pttl = FOREVER end
    longest = math.max(longest, pttl)
  end
  if longest > 0 then
    set_state(key, spack(rule.layout, unpack(fresh, 1, rule.doubles)), longest)
  else
    redis.call('DEL', key)
  end
end

-- The shapes of the batch's ops, starting at fields[a]: { kind, now (false: Redis TIME), cost, rule,
-- token (true: each op carries one), costs (true: each op carries a cost per limit), minimum (true:
-- each op carries a minimum cost), lone (true: a consume of a rule of one string limit with none of
-- these, which a call of that one op runs as consume_lone) }, indexed by the text ops name them by;
-- and the index of the first field after them.
local function read_shapes(fields, rules, a)
  local shapes = {}
  for s = 1, tonumber(fields[a]) do
    local kind, rule, flags = fields[a + 1], rules[fields[a + 4]], fields[a + 5]
    shapes[tostring(s)] = {
      kind = kind,
      now = fields[a + 2] ~= '' and tonumber(fields[a + 2]),
      cost = tonumber(fields[a + 3]),
      rule = rule,
      token = string.find(flags, 't', 1, true) ~= nil,
      costs = string.find(flags, 'v', 1, true) ~= nil,
      minimum = string.find(flags, 'm', 1, true) ~= nil,
      lone = kind == 'c' and flags == '' and #rule.algos == 1 and rule.packed == 1,
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
local function check_types(KEYS, ARGV, shapes, a)
  local strings, at, seen, k = {}, {}, {}, 1
  for _ = 1, tonumber(ARGV[a]) do
    local shape = shapes[ARGV[a + 1]]
    a = a + 1
    if shape.token then a = a + 1 end
    if shape.minimum then a = a + 1 end
    if shape.kind == 'g' then a = a + 2 end
    local rule = shape.rule
    if shape.kind == 's' then a = a + 2 + #rule.algos end
    if shape.costs then a = a + #rule.algos end
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

-- A peek's or reset's `found`: 1 when the op's keys (from KEYS[k]) hold a state of any of its limits, else 0;
-- `old` is what its packed key held.
local function holds_state(KEYS, rule, old, k)
  if old ~= NOTHING then
    if rule.packed == 1 then return 1 end
    for s = 1, rule.packed do
      if old[rule.first[s]] then return 1 end
    end
  end
  local from, to = k, k + rule.key_count - 1
  if rule.packed > 0 then from = k + 1 end
  if from <= to and redis.call('EXISTS', unpack(KEYS, from, to)) > 0 then return 1 end
  return 0
end

local function write(algo, key, state, ttl)
  if ttl > 0 then algo.commit(key, state, ttl) else redis.call('DEL', key) end
end

-- Writes of sorted-set limits an op commits once every limit allowed it, the doubles of a lone
-- string limit, the new doubles of an op's packed key (fresh, their TTLs in fresh_ttl, by place),
-- and where the steps of an op that writes nothing put theirs (scratch): arrays reused op to op.
local pending_algo, pending_key, pending_state, pending_ttl = {}, {}, {}, {}
local lone, fresh, fresh_ttl, scratch = { 0, 0, 0 }, {}, {}, {}
-- Per limit: the last op it refused (by `ops_run` when that op ran), and where that op's reply for
-- it starts. Written on refusals only: the ops that pass pay nothing for it. `ops_run` only grows,
-- also across the calls of a function library, which keeps these tables.
local refused_op, refused_at = {}, {}
local ops_run = 0

-- The shapes of headers parsed before, by header: kept from call to call where the driver is a
-- loaded function library (a script starts each call without them). Emptied when it holds
-- MAX_PARSED headers.
local parsed, parsed_count, MAX_PARSED = {}, 0, 1000

-- The cost a consume of up to `cost` on the op's keys (from KEYS[k]) takes, `state` what its packed
-- key holds: `cost` when every limit allows it, else the least a refusing limit still has
-- (remaining, in requests of cost 1) when that is `minimum` or more, else `cost` (to be refused).
-- The steps run into scratch: nothing is written. The memory store's `grantedCost`.
local function granted_cost(KEYS, k, rule, cost, minimum, now, token, state)
  local room = cost
  for i = 1, #rule.algos do
    local key, at = KEYS[k], rule.place[i]
    if not at then key = KEYS[k + rule.own[i]] end
    local allowed, remaining = rule.algos[i].step(key, rule.params[i], cost, now, token, state, at, scratch)
    if allowed == 0 and remaining < room then room = remaining end
  end
  if room < minimum then return cost end
  return room
end

-- The header's fields: its text cut at every space.
local function fields_of(header)
  local fields, n = {}, 0
  for field in string.gmatch(header .. ' ', '([^ ]*) ') do
    n = n + 1
    fields[n] = field
  end
  return fields
end

-- The call's header, { slack = ttl_slack_ms, shapes = read_shapes after read_rules }, from `parsed`
-- when a call before carried the same text. A header with a client's time in its shapes changes at
-- every call: it is not kept.
local function read_header(text)
  local header = parsed[text]
  if header then return header end
  local fields = fields_of(text)
  local rules, a = read_rules(fields, 2)
  -- Every place filled up front, rather than tables growing op by op.
  for _, rule in pairs(rules) do
    for d = #fresh + 1, rule.doubles do fresh[d], fresh_ttl[d], scratch[d] = 0, false, 0 end
  end
  header = { slack = tonumber(fields[1]), shapes = (read_shapes(fields, rules, a)) }
  for _, shape in pairs(header.shapes) do
    if shape.now then return header end
  end
  if parsed_count == MAX_PARSED then parsed, parsed_count = {}, 0 end
  parsed[text], parsed_count = header, parsed_count + 1
  return header
end

-- The call's Redis TIME in milliseconds once an op read it (read_server_now), else nil: reset at
-- the start of every call.
local server_now
local function read_server_now()
  local t = redis.call('TIME')
  -- Arithmetic converts each string once; tonumber() would parse it twice.
  server_now = t[1] * 1000 + math.floor(t[2] / 1000)
end

-- Puts a limit's answer in `reply` after reply[r]; returns the index of its last element. Allowed
-- with no delay (nearly every limit of nearly every decision): remaining, reset_ms. Otherwise
-- -1 - remaining, reset_ms, verdict.
local function put_outcome(reply, r, allowed, remaining, reset, retry, delay)
  local verdict = delay
  if allowed == 0 then verdict = -2 - retry end
  if verdict ~= 0 then remaining = -1 - remaining end
  -- Counts near 2^53 go back as text: node-redis reads integer replies that large off by a few.
  if remaining > 4503599627370496 or remaining < -4503599627370496 then remaining = format('%d', remaining) end
  reply[r + 1], reply[r + 2] = remaining, reset
  if verdict == 0 then return r + 2 end
  reply[r + 3] = verdict
  return r + 3
end

-- Runs the ops from ARGV[ops_at] (`shapes` and `fetched` as run_batch has them, `slack` the
-- TTL slack); a group's consumes (kind 'a') run as `group_kind`. Returns the
-- reply (its Redis TIME left 0: see `reply_of`) and whether every op was allowed by all of its limits.
local function run_ops(KEYS, ARGV, shapes, fetched, ops_at, slack, group_kind)
  local a = ops_at
  local reply = { ARGV[#ARGV], 0 }
  local r, k = 2, 1
  local every_allowed = true
  for _ = 1, tonumber(ARGV[a]) do
    ops_run = ops_run + 1
    local op = ops_run
    local shape = shapes[ARGV[a + 1]]
    local kind, cost, rule, token = shape.kind, shape.cost, shape.rule, ''
    if kind == 'a' then kind = group_kind end
    a = a + 1
    if shape.token then
      token = ARGV[a + 1]
      a = a + 1
    end
    local minimum
    if shape.minimum then
      minimum = tonumber(ARGV[a + 1])
      a = a + 1
    end
    local charge
    if kind == 'g' then
      charge = { at = tonumber(ARGV[a + 1]), cost = tonumber(ARGV[a + 2]), token = token }
      kind = 'f'
      a = a + 2
    end
    -- A settle's hold: its token and time, then what it charged each limit.
    local held
    if kind == 's' then
      local n = #rule.algos
      held = { token = ARGV[a + 1], at = tonumber(ARGV[a + 2]) }
      for i = 1, n do held[i] = tonumber(ARGV[a + 2 + i]) end
      a = a + 2 + n
    end
    local costs
    if shape.costs then
      local n = #rule.algos
      costs = {}
      for i = 1, n do costs[i] = tonumber(ARGV[a + i]) end
      a = a + n
    end
    local now, ttl_extra = shape.now, slack
    if not now then
      if not server_now then read_server_now() end
      now, ttl_extra = server_now, 0
    end
    local algos, params, place, own, packed = rule.algos, rule.params, rule.place, rule.own, rule.packed
    local packed_key = KEYS[k]
    local old = NOTHING
    if packed > 0 then
      local value = fetched[k]
      if value == nil then value = redis.call('GET', packed_key) end
      -- A value of another length (not written by this script) reads as no state.
      if value and #value == rule.bytes then
        if packed == 1 then
          old = read_lone(value, rule, lone)
        else
          old = unpack_doubles(value, rule)
        end
      end
    end
    if minimum then cost = granted_cost(KEYS, k, rule, cost, minimum, now, token, old) end
    -- A peek's or reset's `found` (not a group's peeks), before a reset deletes anything.
    local found
    if shape.kind == 'p' or kind == 'r' then found = holds_state(KEYS, rule, old, k) end
    for d = 1, rule.doubles do fresh_ttl[d] = false end
    local written_any = false
    local all_allowed, writes = true, 0
    -- Where the steps put the new states: only a consume's are written.
    local out = scratch
    if kind == 'c' then out = fresh end
    for i = 1, #algos do
      local algo, p, at = algos[i], params[i], place[i]
      local key, state = packed_key, old
      if not at then key = KEYS[k + own[i]] end
      local step_cost = cost
      if costs then step_cost = costs[i] end
      -- Consumes (nearly every op) skip what the other kinds do first.
      if kind ~= 'c' then
        if kind == 'l' and algo.release then algo.release(key, p, now, token) end
        if kind == 's' and algo.release then algo.release(key, p, now, held.token) end
        if kind == 'f' or kind == 'n' or kind == 's' then
          -- What the limit's refund (penalty) leaves, for how long: nil when it changes nothing.
          local written_ttl, written
          local units, change = step_cost, kind
          if kind == 's' then
            -- The unused part back as a refund of the hold's charge, an excess as a penalty; equal, nothing.
            units, change = held[i] - step_cost, 'f'
            if units < 0 then units, change = -units, 'n' end
            if units == 0 then change = '' end
            charge = { at = held.at, cost = held[i], token = held.token }
          end
          step_cost = 1
          if change == 'n' then
            if algo.penalty then written_ttl, written = algo.penalty(key, p, units, now, token, old, at, fresh) end
          elseif change == 'f' and algo.refund then
            -- A refund of costs per limit and a charge gives each limit back what the charge took from it.
            if costs and charge and kind == 'f' then charge.cost = units end
            written_ttl, written = algo.refund(key, p, units, now, old, at, fresh, charge)
          end
          if written_ttl then
            written_ttl = written_ttl + ttl_extra
            if at then
              fresh_ttl[at], written_any = written_ttl, true
              -- The peek below reads the state written.
              state = fresh
              if written_ttl <= 0 then state = NOTHING end
            else
              write(algo, key, written, written_ttl)
            end
          end
        end
        if kind == 'k' then
          step_cost = 1
          if algo.block then
            fresh_ttl[at], written_any = algo.block(now, cost, fresh, at) + ttl_extra, true
            state = fresh
          end
        end
      end
      local allowed, remaining, reset, retry, delay, ttl, commit_state = algo.step(key, p, step_cost, now, token, state, at, out)
      if not all_allowed and allowed == 1 and kind == 'c' and algo.after_denial then
        local block_ttl = algo.after_denial(p, now, fresh, at)
        if block_ttl then
          -- The refused consume writes the block alone (what the other limits' steps put in fresh is
          -- dropped) and clears the limits that refused, which start afresh when the block ends:
          -- they report the block's time.
          for d = 1, rule.doubles do fresh_ttl[d] = false end
          for j = 1, i - 1 do
            if refused_op[j] == op then
              local pos = refused_at[j]
              if place[j] then fresh_ttl[place[j]] = 0 else redis.call('DEL', KEYS[k + own[j]]) end
              reply[pos + 1] = block_ttl
              if reply[pos + 2] ~= -1 then reply[pos + 2] = -2 - block_ttl end
            end
          end
          fresh_ttl[at], written_any = block_ttl + ttl_extra, true
          allowed, remaining, reset, retry, delay, ttl = 0, 0, block_ttl, block_ttl, 0, nil
        end
      end
      if allowed == 0 then refused_op[i], refused_at[i] = op, r + 1 end
      r = put_outcome(reply, r, allowed, remaining, reset, retry, delay)
      if allowed == 0 then
        all_allowed = false
      else
        if kind == 'c' and ttl then
          if at then
            fresh_ttl[at] = ttl + ttl_extra
          else
            writes = writes + 1
            pending_algo[writes], pending_key[writes], pending_state[writes], pending_ttl[writes] = algo, key, commit_state, ttl
          end
        end
      end
    end
    if kind == 'c' and all_allowed then
      for w = 1, writes do
        write(pending_algo[w], pending_key[w], pending_state[w], pending_ttl[w] + ttl_extra)
      end
      if packed > 0 then write_packed(packed_key, rule, old, fresh, fresh_ttl) end
    elseif written_any then
      write_packed(packed_key, rule, old, fresh, fresh_ttl)
    end
    if minimum then
      r = r + 1
      reply[r] = cost
    end
    if found then
      if kind == 'r' then redis.call('DEL', unpack(KEYS, k, k + rule.key_count - 1)) end
      r = r + 1
      reply[r] = found
    end
    if not all_allowed then every_allowed = false end
    k = k + rule.key_count
  end
  return reply, every_allowed
end

-- `reply` with the Redis TIME its ops decided on, when they read it.
local function reply_of(reply)
  if server_now then reply[2] = server_now end
  return reply
end

-- A call of one op of a `lone` shape (a decision sent alone, as with one in flight): what run_ops
-- does for it, the same read, write and reply, without the batch's machinery.
local function consume_lone(KEYS, ARGV, shape, slack)
  local rule, now, ttl_extra = shape.rule, shape.now, 0
  if now then
    ttl_extra = slack
  else
    read_server_now()
    now = server_now
  end
  local key, old = KEYS[1], NOTHING
  local value = redis.call('GET', key)
  if value and #value == rule.bytes then old = read_lone(value, rule, lone) end
  local allowed, remaining, reset, retry, delay, ttl = rule.algos[1].step(key, rule.params[1], shape.cost, now, '', old, 1, fresh)
  if allowed == 1 and ttl then write_lone(key, rule, fresh, ttl + ttl_extra) end
  local reply = { ARGV[#ARGV], server_now or 0, 0, 0 }
  put_outcome(reply, 2, allowed, remaining, reset, retry, delay)
  return reply
end

-- Runs the call: its ops, in order, each atomic; returns the reply described above.
local function run_batch(KEYS, ARGV)
  server_now = nil
  local header, a = read_header(ARGV[1]), 2
  local shapes, slack = header.shapes, header.slack
  if #ARGV == 2 then
    local shape = shapes['1']
    if shape.lone then return consume_lone(KEYS, ARGV, shape, slack) end
    ARGV = { ARGV[1], '1', '1', ARGV[2] }
  end
  local first_kind = shapes[ARGV[a + 1]].kind
  local fetched = NOTHING
  if tonumber(ARGV[a]) > 1 or first_kind == 'f' or first_kind == 'g' or first_kind == 'n' or first_kind == 's' or first_kind == 'l' then fetched = check_types(KEYS, ARGV, shapes, a) end

  if first_kind ~= 'a' then return reply_of((run_ops(KEYS, ARGV, shapes, fetched, a, slack, 'c'))) end
  -- A group (its ops all of kind 'a', on different keys): each is first run as a peek of its cost,
  -- which writes nothing; only when every one passes are they run again as consumes, on the same
  -- states at the same time, so with the same answers. Otherwise the peeks' answers are the reply.
  local checked, admitted = run_ops(KEYS, ARGV, shapes, fetched, a, slack, 'p')
  if not admitted then return reply_of(checked) end
  return reply_of((run_ops(KEYS, ARGV, shapes, fetched, a, slack, 'c')))
end
