/**
 * The sliding-log script as it was before decisions were batched (commit 679d147), one decision per
 * call, kept verbatim so a test can hold the current script to it: during a rolling upgrade,
 * instances of both versions decide on the same sorted sets. Its own description follows.
 *
 * One decision of the exact rolling window, run atomically inside Redis: the same rule as
 * MemoryRateLimiter, over a sorted set that holds one member per admitted request, scored with its
 * admission time in whole microseconds (integers up to 2^53 are exact in Lua's doubles, so every
 * difference below is exact and the seconds round exactly as the in-memory limiter's do).
 *
 * KEYS[1]  the key's set of admissions
 * ARGV[1]  limit
 * ARGV[2]  window in milliseconds
 * ARGV[3]  '1' to admit and count, '0' to peek
 * ARGV[4]  the caller's time in milliseconds, or '' to read Redis's own clock (TIME), so the
 *          clocks of the API instances cannot skew the window
 *
 * Returns { allowed (1 or 0), remaining, seconds until the next slot frees }.
 *
 * Every call into Redis costs about a microsecond, so each path makes only the calls it needs:
 * a peek at a key with nothing in the window (the invalid-key check of nearly every request)
 * makes one; a refusal writes nothing; old admissions are trimmed only when one is added.
 * Scores and members are formatted with '%.0f': Lua hands a bare number to Redis with 14
 * significant digits, which would round a 16-digit microsecond time. A member is its admission
 * time; two admissions in the same microsecond (from two instances, or a caller's clock that
 * stands still) get a counter suffix, so neither replaces the other.
 */
export const previousSlidingLogScript = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2]) * 1000
local admit = ARGV[3] == '1'
local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2]
if not newest and not admit then
  return { 1, limit - 1, 0 }
end
local clock
if ARGV[4] == '' then
  local time = redis.call('TIME')
  clock = tonumber(time[1]) * 1000000 + tonumber(time[2])
else
  clock = math.floor(tonumber(ARGV[4]) * 1000)
end
-- A clock that steps back must not reopen slots: time never runs backwards for a key.
local now = clock
if newest then
  newest = tonumber(newest)
  if newest > now then now = newest end
end
local start = string.format('%.0f', now - window)
local inWindow = 0
if newest then inWindow = redis.call('ZCOUNT', key, '(' .. start, '+inf') end
local allowed = inWindow < limit
if allowed and admit then
  -- Admissions at or before the window's start can never count again.
  if newest then redis.call('ZREMRANGEBYSCORE', key, '-inf', start) end
  local score = string.format('%.0f', now)
  local member = score
  local suffix = 0
  while redis.call('ZADD', key, 'NX', score, member) == 0 do
    suffix = suffix + 1
    member = score .. '-' .. suffix
  end
  inWindow = inWindow + 1
  -- The key is useless once its newest admission has left the window: then it expires.
  redis.call('PEXPIRE', key, math.ceil((now - clock + window) / 1000))
end
local remaining = limit - inWindow
if allowed and not admit then remaining = remaining - 1 end
if remaining < 0 then remaining = 0 end
local seconds = 0
if inWindow > 0 then
  -- The next slot frees when the count drops below the limit: when the oldest admission leaves,
  -- or (after the limit was lowered below the count) the one that many later.
  local freeing = now
  if inWindow > 1 or not (allowed and admit) then
    local index = 0
    if inWindow > limit then index = inWindow - limit end
    freeing = tonumber(redis.call('ZRANGEBYSCORE', key, '(' .. start, '+inf', 'WITHSCORES', 'LIMIT', index, 1)[2])
  end
  seconds = math.max(1, math.ceil((freeing + window - now) / 1000000))
end
local allowedFlag = 0
if allowed then allowedFlag = 1 end
return { allowedFlag, remaining, seconds }
`;
