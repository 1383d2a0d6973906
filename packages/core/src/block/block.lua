-- A rule's block (the limiter's `blockDuration`, `limiter.block`): mirrors block/block-limit.ts.
-- p = { duration_ms (0: only limiter.block blocks) }; state: <ms the block ends at>.
-- Always the last limit of its rule: the driver calls after_denial once the others have answered.
ALGOS['block'] = { doubles = 1, step = function(key, p, cost, now, token, state, at, out)
  local ends = state[at]
  if ends and ends > now then return 0, 0, ends - now, ends - now, 0 end
  return 1, 0, 0, 0, 0
end, after_denial = function(p, now, out, at)
  if p[1] <= 0 then return nil end
  out[at] = now + p[1]
  return p[1]
end, block = function(now, duration, out, at)
  out[at] = now + duration
  return duration
end }
