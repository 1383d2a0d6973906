-- Warm-up (Guava SmoothWarmingUp): mirrors algorithms/warm-up/model.ts line for line.
-- p = { stable_us, threshold_permits, max_permits, slope, cool_down_us };
-- state: <stored permits> <next free epoch us> (doubles: see the prelude).

local function stored_permits_to_wait_time(stored, take, p)
  local stable, threshold, slope = p[1], p[2], p[4]
  local above = stored - threshold
  local micros = 0
  local rest = take
  if above > 0 then
    local take_above = math.min(above, rest)
    local length = stable + above * slope + (stable + (above - take_above) * slope)
    micros = math.floor((take_above * length) / 2)
    rest = rest - take_above
  end
  return micros + math.floor(stable * rest)
end

-- The state as seen at `now_us` (Guava's resync): stored permits, next free epoch us.
local function resynced(v, free, now_us, p)
  local max_permits, cool = p[3], p[5]
  if not v then return max_permits, now_us end
  local stored, next_free = math.min(max_permits, v), free
  if now_us > next_free then
    local idle = now_us - math.ceil(next_free / 1000) * 1000
    stored = stored + idle / cool
    if stored >= max_permits then next_free = now_us else next_free = next_free + idle end
    stored = math.min(max_permits, stored)
  end
  return stored, next_free
end

-- Pays for `cost` permits: puts the new state in out, returns remaining, reset_ms, ttl_ms.
local function paid(stored, next_free, cost, now_us, p, at, out)
  local stable, max_permits, cool = p[1], p[3], p[5]
  local spend = math.min(cost, stored)
  local wait = stored_permits_to_wait_time(stored, spend, p) + math.floor((cost - spend) * stable)
  local left = stored - spend
  local new_free = next_free + wait
  local reset = math.max(0, math.ceil((new_free - now_us) / 1000))
  local cool_ms = math.ceil(((max_permits - left) * cool) / 1000)
  local remaining = 1
  if new_free > now_us then remaining = 0 end
  out[at], out[at + 1] = left, new_free
  return remaining, reset, reset + cool_ms + 1
end

ALGOS['warm-up'] = { doubles = 2, step = function(key, p, cost, now, token, state, at, out)
  local now_us = now * 1000
  local stored, next_free = resynced(state[at], state[at + 1], now_us, p)
  if cost * p[1] > MAX_SPAN_US then
    local reset = math.ceil((next_free - now_us) / 1000)
    local remaining = 1
    if reset > 0 then remaining = 0 end
    return 0, remaining, reset, INFINITE, 0
  end
  if next_free > now_us then
    local retry = math.ceil((next_free - now_us) / 1000)
    return 0, 0, retry, retry, 0
  end
  local remaining, reset, ttl = paid(stored, next_free, cost, now_us, p, at, out)
  return 1, remaining, reset, 0, 0, ttl
end, penalty = function(key, p, cost, now, token, state, at, out)
  local now_us = now * 1000
  local stored, next_free = resynced(state[at], state[at + 1], now_us, p)
  local room = math.max(0, math.floor((now_us + MAX_SPAN_US - next_free) / p[1]))
  local _, _, ttl = paid(stored, next_free, math.min(cost, room), now_us, p, at, out)
  return ttl
end }
