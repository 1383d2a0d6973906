-- GCRA, "future state" variant: mirrors algorithms/gcra/model.ts line for line.
-- p = { interval_us, burst, max_delay_us (0 unless reserve mode) }; state: the TAT in epoch microseconds.
-- The allowed path, every decision's, makes as few calls as it can: what only a refusal reports
-- is worked out on refusal, and the state (the TAT) comes and goes as a number: the driver packs it.
local floor, ceil = math.floor, math.ceil
local function refused(now_us, tolerance, max_delay, base, interval, retry)
  local remaining = floor((now_us + tolerance + max_delay - base) / interval)
  if remaining < 0 then remaining = 0 end
  return 0, remaining, ceil((base - now_us) / 1000), retry, 0
end
ALGOS['gcra'] = { doubles = 1, step = function(key, p, cost, now, token, state, at, out)
  local tat = state[at]
  local interval, burst, max_delay = p[1], p[2], p[3]
  local now_us = now * 1000
  local tolerance = interval * burst
  local base = now_us
  if tat and tat >= now_us then base = tat end
  if interval * cost > tolerance + max_delay then return refused(now_us, tolerance, max_delay, base, interval, INFINITE) end
  local new_tat = base + interval * cost
  local allow_at = new_tat - tolerance
  if now_us + max_delay < allow_at then
    return refused(now_us, tolerance, max_delay, base, interval, ceil((allow_at - max_delay - now_us) / 1000))
  end
  local reset = ceil((new_tat - now_us) / 1000)
  local delay = 0
  if allow_at > now_us then delay = ceil((allow_at - now_us) / 1000) end
  out[at] = new_tat
  return 1, floor((now_us + tolerance + max_delay - new_tat) / interval), reset, 0, delay, reset
end, refund = function(key, p, cost, now, state, at, out, charge)
  local tat = state[at]
  local now_us = now * 1000
  local back = p[1] * units_back(cost, charge)
  if charge then back = math.min(back, held_by_charge(charge, now, p[1], 1000)) end
  if not tat or tat <= now_us or back <= 0 then return nil end
  local new_tat = math.max(now_us, tat - back)
  out[at] = new_tat
  return ceil((new_tat - now_us) / 1000)
end, penalty = function(key, p, cost, now, token, state, at, out)
  local tat = state[at]
  local now_us = now * 1000
  local base = now_us
  if tat and tat >= now_us then base = tat end
  local new_tat = math.min(base + p[1] * cost, math.max(base, now_us + MAX_SPAN_US))
  out[at] = new_tat
  return ceil((new_tat - now_us) / 1000)
end }
