-- Fixed window: mirrors algorithms/fixed-window/model.ts line for line.
-- p = { limit, window_ms }; state: <window start ms> <count> (doubles: see the prelude).
ALGOS['fixed-window'] = { width = 16, step = function(key, p, cost, now, token, stored)
  local limit, window = p[1], p[2]
  local start, count = now, 0
  if stored then
    local s, c = unpack2(stored)
    if now < s + window then start, count = s, c end
  end
  local reset = start + window - now
  if count + cost > limit then
    local retry = reset
    if cost > limit then retry = INFINITE end
    return 0, limit - count, reset, retry, 0
  end
  count = count + cost
  return 1, limit - count, reset, 0, 0, pack2(start, count), reset
end, refund = function(key, p, cost, now, stored)
  if not stored then return nil end
  local start, count = unpack2(stored)
  local window_end = start + p[2]
  if now >= window_end or count == 0 then return nil end
  return pack2(start, math.max(0, count - cost)), window_end - now
end }
