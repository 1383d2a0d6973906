-- The Redis script is this prelude, then every algorithm's file, each in a `do ... end` block of its
-- own (its local helpers need no prefix), then the batch driver (lua/driver.lua).
--
-- An algorithm file registers ALGOS['<name>'] (the TypeScript `Algorithm.name`), a table of:
--   step(key, p, cost, now, token, state, at, out)
--       -> allowed, remaining, reset_ms, retry_ms, delay_ms[, ttl_ms[, commit_state]]
--     key     the key of the limit's state: the rule's packed key for a string state (read it
--             through `state`, never write it), the limit's own key for a sorted set.
--     p       the params, numbers in the order of the TypeScript `luaArgs(params)`.
--     cost    units the request takes (1 when the driver reports a peek after a refund).
--     now     epoch milliseconds (the client's clock, or Redis TIME).
--     token   a string unique to the operation, for algorithms that store one member per
--             request (may be '' otherwise).
--     state, at  a string state is its `doubles` numbers state[at], state[at + 1], …; state[at]
--             is false or nil when there is none (sorted sets: `at` is nil, ignore both).
--     out     where a step that allows puts its new string state: out[at], out[at + 1], ….
--     It returns the Outcome (algorithms/types.ts) as integers: allowed 1/0, remaining, reset_ms
--     (INFINITE: never back to full), retry_ms (INFINITE: never), delay_ms (shaping; 0 otherwise).
--     When it allows and has something to store, also how long to keep it, ttl_ms (FOREVER: with
--     no expiry, a string state only), and for a sorted set the Lua value
--     its `commit` takes. A step writes nothing to Redis: the driver writes the state of a
--     consume once every limit of the operation allowed it.
--   doubles  how many numbers its string state holds, always the same (at most 3): a packed key
--     holds each limit's state at a fixed place, as little-endian doubles, which the driver
--     unpacks and packs for every limit of a rule at once (exactly the numbers the step
--     computed, at a fraction of the cost of text either way, or of a struct call per limit;
--     and a step reads and writes only the numbers its state has).
--   fetch = false  when the state is not a string but a sorted set under a key of the limit's
--     own: the driver then reads nothing for it, and the algorithm brings `commit`.
--   commit(key, commit_state, ttl_ms)  for a sorted set: writes what `step` or `refund` returned.
--   refund(key, p, cost, now, state, at, out, charge) -> ttl_ms[, commit_state]  optional: gives `cost`
--     back (with a charge { at, cost, token }, at most what that charge still holds, as the
--     TypeScript `refund` does), putting the new string state in `out` as `step` does; nil when there is nothing to
--     give back, ttl_ms <= 0 deletes the state. The driver writes it, then reports a peek
--     (cost 1) on the refunded state.
--   penalty(key, p, cost, now, token, state, at, out) -> ttl_ms[, commit_state]  optional: charges
--     `cost` even beyond the limit (never refused), as `refund` writes; the driver reports a peek.
--   release(key, p, now, token)  optional: removes the lease `token`, writing its key itself,
--     before the driver reports a peek.
-- The driver adds a slack to every ttl_ms of a state written on a client's clock.
--
-- Each algorithm file's header names its `p` and its state. Sorted-set scores are text, written
-- with num: whole numbers as integers, anything else with 17 significant digits.
-- A state read after its ttl_ms must decide as no state would: the packed key lives as long as
-- its longest-lived limit.
local INFINITE = -1
-- MAX_SPAN_MS of algorithms/fields.ts in microseconds: the longest wait a cost may take (longer, it
-- never passes), and how far ahead a penalty may charge a meter.
local MAX_SPAN_US = 50 * 365 * 86400000 * 1000
-- A ttl_ms that keeps a state with no expiry (a count that never resets).
local FOREVER = math.huge
local ALGOS = {}
local format = string.format
local spack, sunpack = struct.pack, struct.unpack
local function num(x)
  if x % 1 == 0 and x > -9007199254740992 and x < 9007199254740992 then return format('%d', x) end
  return format('%.17g', x)
end
-- How the driver writes a packed key: PSETEX, the `SET … PX` without options to parse, measured a
-- little cheaper. TTLs are whole milliseconds, formatted here: Redis formats a Lua number with
-- '%.17g', which costs more.
local function set_state(key, state, ttl_ms)
  if ttl_ms == FOREVER then
    redis.call('SET', key, state)
  else
    redis.call('PSETEX', key, format('%d', ttl_ms), state)
  end
end

-- algorithms/refund.ts, for the algorithms' `refund`: the units a refund of `cost` may give back
-- (never more than its charge took), and what a charge still holds at `now` in a meter draining
-- `drain` per ms (`heldByCharge`).
local function units_back(cost, charge)
  if charge then return math.min(cost, charge.cost) end
  return cost
end
local function held_by_charge(charge, now, unit, drain)
  return charge.cost * unit - math.max(0, now - charge.at) * drain
end
