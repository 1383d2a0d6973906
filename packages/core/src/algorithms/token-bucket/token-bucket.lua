-- Token bucket: mirrors algorithms/token-bucket/model.ts line for line.
-- p = { capacity, refill, interval_ms, max_delay_ms (0 unless reserve mode) }; state: <scaled tokens> <last ms> (doubles: see the prelude).
ALGOS['token-bucket'] = { doubles = 2, step = function(key, p, cost, now, token, state, at, out)
  local s, l = state[at], state[at + 1]
  local capacity, refill, interval, max_delay = p[1], p[2], p[3], p[4]
  local full = capacity * interval
  local borrow = max_delay * refill
  local scaled, last = full, now
  if s then
    local elapsed = 0
    if now > l then elapsed = now - l end
    scaled = math.min(full, s + elapsed * refill)
    last = l
    if now > l then last = now end
  end
  local need = cost * interval
  local remaining = math.max(0, math.floor((scaled + borrow) / interval))
  if need - full > borrow or need - scaled > borrow then
    local retry = INFINITE
    if need - full <= borrow then retry = math.ceil((need - scaled - borrow) / refill) end
    return 0, remaining, math.ceil((full - scaled) / refill), retry, 0
  end
  local left = scaled - need
  local reset = math.ceil((full - left) / refill)
  local delay = 0
  if left < 0 then delay = math.ceil(-left / refill) end
  out[at], out[at + 1] = left, last
  return 1, math.max(0, math.floor((left + borrow) / interval)), reset, 0, delay, reset
end, refund = function(key, p, cost, now, state, at, out, charge)
  local s, l = state[at], state[at + 1]
  local capacity, refill, interval = p[1], p[2], p[3]
  if not s then return nil end
  local full = capacity * interval
  local elapsed = 0
  if now > l then elapsed = now - l end
  local scaled = math.min(full, s + elapsed * refill)
  local back = units_back(cost, charge) * interval
  if charge then back = math.min(back, held_by_charge(charge, now, interval, refill)) end
  if scaled >= full or back <= 0 then return nil end
  local left = math.min(full, scaled + back)
  out[at], out[at + 1] = left, math.max(now, l)
  return math.ceil((full - left) / refill)
end, penalty = function(key, p, cost, now, token, state, at, out)
  local s, l = state[at], state[at + 1]
  local capacity, refill, interval = p[1], p[2], p[3]
  local full = capacity * interval
  local scaled, last = full, now
  if s then
    local elapsed = 0
    if now > l then elapsed = now - l end
    scaled = math.min(full, s + elapsed * refill)
    last = math.max(now, l)
  end
  local left = math.max(scaled - cost * interval, math.min(scaled, -MAX_SPAN_US / 1000 * refill))
  out[at], out[at + 1] = left, last
  return math.ceil((full - left) / refill)
end }
