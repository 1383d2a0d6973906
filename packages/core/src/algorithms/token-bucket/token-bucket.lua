-- Token bucket: mirrors algorithms/token-bucket/model.ts line for line.
-- p = { capacity, refill, interval_ms }; state: "<scaled tokens> <last ms>".
ALGOS['token-bucket'] = { n = 3, step = function(key, p, cost, now)
  local capacity, refill, interval = p[1], p[2], p[3]
  local full = capacity * interval
  local scaled, last = full, now
  local stored = redis.call('GET', key)
  if stored then
    local s, l = unpack2(stored)
    local elapsed = 0
    if now > l then elapsed = now - l end
    scaled = math.min(full, s + elapsed * refill)
    last = l
    if now > l then last = now end
  end
  local need = cost * interval
  local remaining = math.floor(scaled / interval)
  if cost > capacity or scaled < need then
    local retry = INFINITE
    if cost <= capacity then retry = math.ceil((need - scaled) / refill) end
    return 0, remaining, math.ceil((full - scaled) / refill), retry, 0
  end
  local left = scaled - need
  local reset = math.ceil((full - left) / refill)
  return 1, math.floor(left / interval), reset, 0, 0, pack2(left, last), reset
end, refund = function(key, p, cost, now)
  local capacity, refill, interval = p[1], p[2], p[3]
  local stored = redis.call('GET', key)
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
