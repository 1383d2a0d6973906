-- Token bucket: mirrors algorithms/token-bucket/model.ts line for line.
-- p = { capacity, refill, interval_ms, max_delay_ms (0 unless reserve mode) }; state: <scaled tokens> <last ms> (doubles: see the prelude).
ALGOS['token-bucket'] = { width = 16, step = function(key, p, cost, now, token, stored)
  local capacity, refill, interval, max_delay = p[1], p[2], p[3], p[4]
  local full = capacity * interval
  local borrow = max_delay * refill
  local scaled, last = full, now
  if stored then
    local s, l = unpack2(stored)
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
  return 1, math.max(0, math.floor((left + borrow) / interval)), reset, 0, delay, pack2(left, last), reset
end, refund = function(key, p, cost, now, stored)
  local capacity, refill, interval = p[1], p[2], p[3]
  if not stored then return nil end
  local full = capacity * interval
  local s, l = unpack2(stored)
  local elapsed = 0
  if now > l then elapsed = now - l end
  local scaled = math.min(full, s + elapsed * refill)
  if scaled >= full then return nil end
  local left = math.min(full, scaled + cost * interval)
  return pack2(left, math.max(now, l)), math.ceil((full - left) / refill)
end }
