-- Sliding window counter: mirrors algorithms/sliding-window-counter/model.ts line for line.
-- p = { limit, window_ms }; state: <window start ms> <previous count> <current count> (doubles: see the prelude).
local function roll(s, prev, curr, now, window)
  local start = math.floor(now / window) * window
  if not s then return start, 0, 0 end
  if s >= start then return s, prev, curr end
  if s == start - window then return start, curr, 0 end
  return start, 0, 0
end

local function faded_after(start, prev, curr, now, window)
  if curr > 0 then return start + 2 * window - now end
  if prev > 0 then return start + window - now end
  return 0
end

ALGOS['sliding-window-counter'] = { doubles = 3, step = function(key, p, cost, now, token, state, at, out)
  local limit, window = p[1], p[2]
  local start, prev, curr = roll(state[at], state[at + 1], state[at + 2], now, window)
  local elapsed = math.max(0, now - start)
  local capacity = limit * window
  local estimate = prev * (window - elapsed) + curr * window
  local need = cost * window
  if estimate + need > capacity then
    local retry = INFINITE
    if cost <= limit then
      local room = capacity - need - curr * window
      if room >= 0 then
        retry = start + window - math.floor(room / prev) - now
      else
        retry = start + 2 * window - math.floor((capacity - need) / curr) - now
      end
    end
    local remaining = math.max(0, math.floor((capacity - estimate) / window))
    return 0, remaining, faded_after(start, prev, curr, now, window), retry, 0
  end
  local reset = start + 2 * window - now
  out[at], out[at + 1], out[at + 2] = start, prev, curr + cost
  return 1, math.floor((capacity - estimate - need) / window), reset, 0, 0, reset
end, refund = function(key, p, cost, now, state, at, out, charge)
  local window = p[2]
  local start, prev, curr = roll(state[at], state[at + 1], state[at + 2], now, window)
  local charged = start
  if charge then
    charged = math.floor(charge.at / window) * window
    cost = math.min(cost, charge.cost)
  end
  if charged == start and curr > 0 then
    curr = math.max(0, curr - cost)
  elseif charged == start - window and prev > 0 then
    prev = math.max(0, prev - cost)
  else
    return nil
  end
  out[at], out[at + 1], out[at + 2] = start, prev, curr
  return faded_after(start, prev, curr, now, window)
end, penalty = function(key, p, cost, now, token, state, at, out)
  local window = p[2]
  local start, prev, curr = roll(state[at], state[at + 1], state[at + 2], now, window)
  out[at], out[at + 1], out[at + 2] = start, prev, curr + cost
  return start + 2 * window - now
end }
