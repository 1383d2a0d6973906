-- Helpers shared by every algorithm step. Whole numbers (the common case: epoch milliseconds and
-- microseconds, counts) are written as integers, anything else with 17 significant digits, so a
-- stored value reads back as exactly the double the step computed.
local INFINITE = -1
local ALGOS = {}
local format = string.format
local function num(x)
  if x % 1 == 0 and x > -9007199254740992 and x < 9007199254740992 then return format('%d', x) end
  return format('%.17g', x)
end
local function pack2(a, b) return num(a) .. ' ' .. num(b) end
local function unpack2(v)
  local a, b = string.match(v, '^(%S+) (%S+)$')
  return tonumber(a), tonumber(b)
end
-- How a step's new state is written unless its algorithm brings its own `commit`; TTLs are whole
-- milliseconds, formatted here rather than by Redis's '%.17g'.
local function set_state(key, state, ttl_ms) redis.call('SET', key, state, 'PX', format('%d', ttl_ms)) end
