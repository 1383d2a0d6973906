-- GCRA, "future state" variant: mirrors algorithms/gcra/model.ts line for line.
-- p = { interval_us, burst, max_delay_us (0 unless reserve mode) }; state: the TAT in epoch microseconds.
local floor, ceil = math.floor, math.ceil
ALGOS['gcra'] = { step = function(key, p, cost, now, token, stored)
  local interval, burst, max_delay = p[1], p[2], p[3]
  local now_us = now * 1000
  local tolerance = interval * burst
  local tat = tonumber(stored)
  local base = now_us
  if tat and tat >= now_us then base = tat end
  local remaining = floor((now_us + tolerance + max_delay - base) / interval)
  if remaining < 0 then remaining = 0 end
  local reset = ceil((base - now_us) / 1000)
  if interval * cost > tolerance + max_delay then return 0, remaining, reset, INFINITE, 0 end
  local new_tat = base + interval * cost
  local allow_at = new_tat - tolerance
  if now_us + max_delay < allow_at then
    return 0, remaining, reset, ceil((allow_at - max_delay - now_us) / 1000), 0
  end
  reset = ceil((new_tat - now_us) / 1000)
  local delay = 0
  if allow_at > now_us then delay = ceil((allow_at - now_us) / 1000) end
  return 1, floor((now_us + tolerance + max_delay - new_tat) / interval), reset, 0, delay, num(new_tat), reset
end, refund = function(key, p, cost, now, stored)
  local now_us = now * 1000
  local tat = tonumber(stored)
  if not tat or tat <= now_us then return nil end
  local new_tat = math.max(now_us, tat - p[1] * cost)
  return num(new_tat), ceil((new_tat - now_us) / 1000)
end }
