-- Leaky bucket: mirrors algorithms/leaky-bucket/{policing,shaping}.ts line for line.
-- p = { 0 (policing), burst, rate, period_ms }; state: "<level in drop-ms> <last ms>".
-- p = { 1 (shaping), interval_us, max_delay_us, capacity }; state: the next free slot in epoch microseconds.
local function lb_drained(stored, now, rate)
  if not stored then return 0, now end
  local level, last = unpack2(stored)
  local elapsed = 0
  if now > last then elapsed = now - last end
  return math.max(0, level - elapsed * rate), math.max(now, last)
end

local function lb_policing(key, p, cost, now)
  local burst, rate, period = p[2], p[3], p[4]
  local level, last = lb_drained(redis.call('GET', key), now, rate)
  local full = burst * period
  local need = cost * period
  if cost > burst or level + need > full then
    local retry = INFINITE
    if cost <= burst then retry = math.ceil((level + need - full) / rate) end
    return 0, math.floor((full - level) / period), math.ceil(level / rate), retry, 0
  end
  local filled = level + need
  local reset = math.ceil(filled / rate)
  return 1, math.floor((full - filled) / period), reset, 0, 0, pack2(filled, last), reset
end

local function lb_slots_within(wait, max_delay, interval)
  if wait > max_delay then return 0 end
  return math.floor((max_delay - wait) / interval) + 1
end

local function lb_shaping(key, p, cost, now)
  local interval, max_delay, capacity = p[2], p[3], p[4]
  local now_us = now * 1000
  local next_free = tonumber(redis.call('GET', key))
  local start = now_us
  if next_free and next_free >= now_us then start = next_free end
  local wait = start - now_us
  local remaining = lb_slots_within(wait, max_delay, interval)
  if cost > capacity or wait > max_delay then
    local retry = INFINITE
    if cost <= capacity then retry = math.ceil((wait - max_delay) / 1000) end
    return 0, remaining, math.ceil(wait / 1000), retry, 0
  end
  local next_slot = start + cost * interval
  local reset = math.ceil((next_slot - now_us) / 1000)
  return 1, lb_slots_within(next_slot - now_us, max_delay, interval), reset, 0, math.ceil(wait / 1000), num(next_slot), reset
end

ALGOS['leaky-bucket'] = { n = 4, step = function(key, p, cost, now)
  if p[1] == 0 then return lb_policing(key, p, cost, now) end
  return lb_shaping(key, p, cost, now)
end, refund = function(key, p, cost, now)
  if p[1] == 0 then
    local stored = redis.call('GET', key)
    if not stored then return nil end
    local level, last = lb_drained(stored, now, p[3])
    if level <= 0 then return nil end
    local left = math.max(0, level - cost * p[4])
    return pack2(left, last), math.ceil(left / p[3])
  end
  local now_us = now * 1000
  local next_free = tonumber(redis.call('GET', key))
  if not next_free or next_free <= now_us then return nil end
  local freed = math.max(now_us, next_free - cost * p[2])
  return num(freed), math.ceil((freed - now_us) / 1000)
end }
