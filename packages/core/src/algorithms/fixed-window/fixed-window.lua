-- Fixed window: mirrors algorithms/fixed-window/model.ts line for line.
-- p = { limit, window_ms (-1: forever, a count that never resets) }; state: <window start ms> <count> (doubles: see the prelude).
-- Forever, the state is kept with no expiry (ttl FOREVER) and reset_ms is INFINITE.
ALGOS['fixed-window'] = { doubles = 2, step = function(key, p, cost, now, token, state, at, out)
  local s, c = state[at], state[at + 1]
  local limit, window = p[1], p[2]
  local forever = window < 0
  local start, count = now, 0
  if s and (forever or now < s + window) then start, count = s, c end
  local reset, ttl = INFINITE, FOREVER
  if not forever then
    reset = start + window - now
    ttl = reset
  end
  if count + cost > limit then
    local retry = reset
    if cost > limit then retry = INFINITE end
    return 0, math.max(0, limit - count), reset, retry, 0
  end
  count = count + cost
  out[at], out[at + 1] = start, count
  return 1, limit - count, reset, 0, 0, ttl
end, refund = function(key, p, cost, now, state, at, out, charge)
  local start, count = state[at], state[at + 1]
  if not start then return nil end
  if charge then
    -- A charge made before this window started went with its window.
    if charge.at < start then return nil end
    cost = math.min(cost, charge.cost)
  end
  local ttl = FOREVER
  if p[2] >= 0 then
    ttl = start + p[2] - now
    if ttl <= 0 then return nil end
  end
  if count == 0 then return nil end
  out[at], out[at + 1] = start, math.max(0, count - cost)
  return ttl
end, penalty = function(key, p, cost, now, token, state, at, out)
  local s, c = state[at], state[at + 1]
  local window = p[2]
  local forever = window < 0
  local start, count = now, 0
  if s and (forever or now < s + window) then start, count = s, c end
  out[at], out[at + 1] = start, count + cost
  if forever then return FOREVER end
  return start + window - now
end }
