-- GCRA, "future state" variant: mirrors algorithms/gcra/model.ts line for line.
-- p = { interval_us, burst }; state: the TAT in epoch microseconds.
ALGOS['gcra'] = { n = 2, step = function(key, p, cost, now)
  local interval, burst = p[1], p[2]
  local now_us = now * 1000
  local tolerance = interval * burst
  local tat = tonumber(redis.call('GET', key))
  local base = now_us
  if tat and tat >= now_us then base = tat end
  local remaining = math.max(0, math.floor((now_us + tolerance - base) / interval))
  local reset = math.ceil((base - now_us) / 1000)
  if cost > burst then return 0, remaining, reset, INFINITE, 0 end
  local new_tat = base + interval * cost
  local allow_at = new_tat - tolerance
  if now_us < allow_at then
    return 0, remaining, reset, math.ceil((allow_at - now_us) / 1000), 0
  end
  reset = math.ceil((new_tat - now_us) / 1000)
  return 1, math.floor((now_us + tolerance - new_tat) / interval), reset, 0, 0, num(new_tat), reset
end, refund = function(key, p, cost, now)
  local now_us = now * 1000
  local tat = tonumber(redis.call('GET', key))
  if not tat or tat <= now_us then return nil end
  local new_tat = math.max(now_us, tat - p[1] * cost)
  return num(new_tat), math.ceil((new_tat - now_us) / 1000)
end }
