-- Fixed window: mirrors algorithms/fixed-window/model.ts line for line.
-- p = { limit, window_ms }; state: <window start ms> <count> (doubles: see the prelude).
ALGOS['fixed-window'] = { doubles = 2, step = function(key, p, cost, now, token, state, at, out)
  local s, c = state[at], state[at + 1]
  local limit, window = p[1], p[2]
  local start, count = now, 0
  if s and now < s + window then start, count = s, c end
  local reset = start + window - now
  if count + cost > limit then
    local retry = reset
    if cost > limit then retry = INFINITE end
    return 0, limit - count, reset, retry, 0
  end
  count = count + cost
  out[at], out[at + 1] = start, count
  return 1, limit - count, reset, 0, 0, reset
end, refund = function(key, p, cost, now, state, at, out)
  local start, count = state[at], state[at + 1]
  if not start then return nil end
  local window_end = start + p[2]
  if now >= window_end or count == 0 then return nil end
  out[at], out[at + 1] = start, math.max(0, count - cost)
  return window_end - now
end }
