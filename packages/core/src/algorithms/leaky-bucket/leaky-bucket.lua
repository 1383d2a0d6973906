-- Leaky bucket: mirrors algorithms/leaky-bucket/{policing,shaping}.ts line for line.
-- p = { 0 (policing), interval_us, burst }; state: <level in drain microseconds> <last ms> (doubles: see the prelude).
-- p = { 1 (shaping), interval_us, max_delay_us }; state: the next free slot in epoch microseconds, 0
-- (two doubles, as policing: one size for the algorithm).
local function drained(level, last, now)
  if not level then return 0, now end
  local elapsed = 0
  if now > last then elapsed = now - last end
  return math.max(0, level - elapsed * 1000), math.max(now, last)
end

local function policing(level, last, p, cost, now, at, out)
  local interval, burst = p[2], p[3]
  level, last = drained(level, last, now)
  local full = burst * interval
  local need = cost * interval
  if cost > burst or level + need > full then
    local retry = INFINITE
    if cost <= burst then retry = math.ceil((level + need - full) / 1000) end
    return 0, math.max(0, math.floor((full - level) / interval)), math.ceil(level / 1000), retry, 0
  end
  local filled = level + need
  local reset = math.ceil(filled / 1000)
  out[at], out[at + 1] = filled, last
  return 1, math.floor((full - filled) / interval), reset, 0, 0, reset
end

local function slots_within(wait, max_delay, interval)
  if wait > max_delay then return 0 end
  return math.floor((max_delay - wait) / interval) + 1
end

local function shaping(next_free, p, cost, now, at, out)
  local interval, max_delay = p[2], p[3]
  local capacity = slots_within(0, max_delay, interval)
  local now_us = now * 1000
  local start = now_us
  if next_free and next_free >= now_us then start = next_free end
  local wait = start - now_us
  local remaining = slots_within(wait, max_delay, interval)
  if cost > capacity or wait > max_delay then
    local retry = INFINITE
    if cost <= capacity then retry = math.ceil((wait - max_delay) / 1000) end
    return 0, remaining, math.ceil(wait / 1000), retry, 0
  end
  local next_slot = start + cost * interval
  local reset = math.ceil((next_slot - now_us) / 1000)
  out[at], out[at + 1] = next_slot, 0
  return 1, slots_within(next_slot - now_us, max_delay, interval), reset, 0, math.ceil(wait / 1000), reset
end

ALGOS['leaky-bucket'] = { doubles = 2, step = function(key, p, cost, now, token, state, at, out)
  if p[1] == 0 then return policing(state[at], state[at + 1], p, cost, now, at, out) end
  return shaping(state[at], p, cost, now, at, out)
end, refund = function(key, p, cost, now, state, at, out, charge)
  local a, b = state[at], state[at + 1]
  local back = units_back(cost, charge) * p[2]
  if charge then back = math.min(back, held_by_charge(charge, now, p[2], 1000)) end
  if back <= 0 then return nil end
  if p[1] == 0 then
    if not a then return nil end
    local level, last = drained(a, b, now)
    if level <= 0 then return nil end
    local left = math.max(0, level - back)
    out[at], out[at + 1] = left, last
    return math.ceil(left / 1000)
  end
  local now_us = now * 1000
  local next_free = a
  if not next_free or next_free <= now_us then return nil end
  local freed = math.max(now_us, next_free - back)
  out[at], out[at + 1] = freed, 0
  return math.ceil((freed - now_us) / 1000)
end, penalty = function(key, p, cost, now, token, state, at, out)
  local a, b = state[at], state[at + 1]
  local need = cost * p[2]
  if p[1] == 0 then
    local level, last = drained(a, b, now)
    local filled = math.min(level + need, math.max(level, MAX_SPAN_US))
    out[at], out[at + 1] = filled, last
    return math.ceil(filled / 1000)
  end
  local now_us = now * 1000
  local start = now_us
  if a and a >= now_us then start = a end
  local next_slot = math.min(start + need, math.max(start, now_us + MAX_SPAN_US))
  out[at], out[at + 1] = next_slot, 0
  return math.ceil((next_slot - now_us) / 1000)
end }
