-- Helpers shared by every algorithm step. Numbers are written with 17 significant
-- digits so a stored value reads back as exactly the double the step computed.
local INFINITE = -1
local ALGOS = {}
local function num(x) return string.format('%.17g', x) end
local function pack2(a, b) return string.format('%.17g %.17g', a, b) end
local function unpack2(v)
  local a, b = string.match(v, '^(%S+) (%S+)$')
  return tonumber(a), tonumber(b)
end
-- How a step's new state is written unless its algorithm brings its own `commit`.
local function set_state(key, state, ttl_ms) redis.call('SET', key, state, 'PX', ttl_ms) end
