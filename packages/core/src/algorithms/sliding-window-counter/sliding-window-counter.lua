-- Sliding window counter: mirrors algorithms/sliding-window-counter/model.ts line for line.
-- p = { limit, window_ms }; state: <window start ms> <previous count> <current count> (doubles: see the prelude).
local function roll(stored, now, window)
  local start = math.floor(now / window) * window
  if not stored then return start, 0, 0 end
  local s, prev, curr = sunpack('<ddd', stored)
  if s >= start then return s, prev, curr end
  if s == start - window then return start, curr, 0 end
  return start, 0, 0
end

local function faded_after(start, prev, curr, now, window)
  if curr > 0 then return start + 2 * window - now end
  if prev > 0 then return start + window - now end
  return 0
end

local function pack3(start, prev, curr)
  return spack('<ddd', start, prev, curr)
end

ALGOS['sliding-window-counter'] = { width = 24, step = function(key, p, cost, now, token, stored)
  local limit, window = p[1], p[2]
  local start, prev, curr = roll(stored, now, window)
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
  return 1, math.floor((capacity - estimate - need) / window), reset, 0, 0, pack3(start, prev, curr + cost), reset
end, refund = function(key, p, cost, now, stored)
  local start, prev, curr = roll(stored, now, p[2])
  if curr == 0 then return nil end
  local left = math.max(0, curr - cost)
  return pack3(start, prev, left), faded_after(start, prev, left, now, p[2])
end }
