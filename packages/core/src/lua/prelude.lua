-- The Redis script is this prelude, then every algorithm's file, each in a `do ... end` block of its
-- own (its local helpers need no prefix), then the batch driver (lua/driver.lua).
--
-- An algorithm file registers ALGOS['<name>'] (the TypeScript `Algorithm.name`), a table of:
--   step(key, p, cost, now, token, stored)
--       -> allowed, remaining, reset_ms, retry_ms, delay_ms[, state, ttl_ms]
--     key     the key of the limit's state: the rule's packed key for a string state (read it
--             through `stored`, never write it), the limit's own key for a sorted set.
--     p       the params, numbers in the order of the TypeScript `luaArgs(params)`.
--     cost    units the request takes (1 when the driver reports a peek after a refund).
--     now     epoch milliseconds (the client's clock, or Redis TIME).
--     token   a string unique to the operation, for algorithms that store one member per
--             request (may be '' otherwise).
--     stored  the limit's string state, false when there is none (sorted sets: ignore it).
--     It returns the Outcome (algorithms/types.ts) as integers: allowed 1/0, remaining, reset_ms,
--     retry_ms (INFINITE: never), delay_ms (shaping; 0 otherwise). When it allows and has
--     something to store, also the new state and how long to keep it, ttl_ms. A step only reads:
--     the driver writes the state of a consume once every limit of the operation allowed it.
--   width  the length in bytes of its string state, always the same (8 per double): a packed key
--     finds each limit's state at a fixed place.
--   fetch = false  when the state is not a string but a sorted set under a key of the limit's
--     own: the driver then reads nothing for it, and the algorithm brings `commit`.
--   commit(key, state, ttl_ms)  optional: writes a state `step` or `refund` returned (any Lua
--     value it understands). Default: set_state below.
--   refund(key, p, cost, now, stored) -> state, ttl_ms  optional: gives `cost` back; nil when there
--     is nothing to give back, ttl_ms <= 0 deletes the state. The driver writes it, then reports
--     step(key, p, 1, now, token, <the refunded state>), as a peek would.
--   release(key, p, now, token)  optional: removes the lease `token`, writing its key itself,
--     before the driver reports a peek.
-- The driver adds a slack to every ttl_ms of a state written on a client's clock.
--
-- Each algorithm file's header names its `p` and its state. A string state is its numbers as
-- little-endian doubles, written with pack1 (pack2 writes two) and read back with unpack1
-- (unpack2): exactly the doubles the step computed, at a fraction of the cost of text either way
-- (Lua's string.format and tonumber were the dearest part of a step). Sorted-set scores are text,
-- written with num: whole numbers as integers, anything else with 17 significant digits.
-- A state read after its ttl_ms must decide as no state would: the packed key lives as long as
-- its longest-lived limit.
local INFINITE = -1
local ALGOS = {}
local format = string.format
local spack, sunpack = struct.pack, struct.unpack
local function num(x)
  if x % 1 == 0 and x > -9007199254740992 and x < 9007199254740992 then return format('%d', x) end
  return format('%.17g', x)
end
local function pack1(x) return spack('<d', x) end
local function unpack1(v) return (sunpack('<d', v)) end
local function pack2(a, b) return spack('<dd', a, b) end
-- Returns a, b (and where the data ended, which callers ignore).
local function unpack2(v) return sunpack('<dd', v) end
-- How a step's new state is written unless its algorithm brings its own `commit`: PSETEX, the
-- `SET … PX` without options to parse, measured a little cheaper. TTLs are whole milliseconds,
-- formatted here: Redis formats a Lua number with '%.17g', which costs more.
local function set_state(key, state, ttl_ms) redis.call('PSETEX', key, format('%d', ttl_ms), state) end
