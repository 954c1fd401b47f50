/**
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
 * Every call into Redis costs about two microseconds of Redis's CPU, more than the Lua around it,
 * so each path makes only the calls it needs: a peek at a key with nothing in the window (the
 * invalid-key check of nearly every request) makes one; a refusal or a peek three and writes
 * nothing; an admission six. A member is its admission time formatted with '%.0f' (Lua hands a
 * bare number to Redis with 14 significant digits, which would round a 16-digit microsecond
 * time), so reading members without their scores (no double formatted per reply) still gives the
 * times; two admissions in the same microsecond (from two instances, or a caller's clock that
 * stands still) get a counter suffix, so neither replaces the other. Old admissions are trimmed by
 * rank: once the count of those in the window is known, every other member is older.
 */
export const slidingLogScript = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2]) * 1000
local admit = ARGV[3] == '1'
local newest = redis.call('ZRANGE', key, -1, -1)[1]
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
-- A member's time: the member itself, or what precedes its '-suffix'.
local function timeOf(member)
  return tonumber(member) or tonumber(string.match(member, '^(-?%d+)'))
end
-- A clock that steps back must not reopen slots: time never runs backwards for a key.
local now = clock
local inWindow = 0
local start
if newest then
  newest = timeOf(newest)
  if newest > now then now = newest end
  -- Scores are whole microseconds: the window (now - window, now] starts at now - window + 1.
  start = string.format('%.0f', now - window + 1)
  inWindow = redis.call('ZCOUNT', key, start, '+inf')
end
local allowed = inWindow < limit
local freeing = now
if allowed and admit then
  -- Admissions before the window can never count again: all but the newest inWindow go.
  if newest then redis.call('ZREMRANGEBYRANK', key, 0, -inWindow - 1) end
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
  -- Only admissions in the window are left, oldest first, and at most the limit of them.
  if inWindow > 1 then freeing = timeOf(redis.call('ZRANGE', key, 0, 0)[1]) end
elseif inWindow > 0 then
  -- The next slot frees when the count drops below the limit: when the oldest admission leaves,
  -- or (after the limit was lowered below the count) the one that many later.
  local index = 0
  if inWindow > limit then index = inWindow - limit end
  freeing = timeOf(redis.call('ZRANGEBYSCORE', key, start, '+inf', 'LIMIT', index, 1)[1])
end
local remaining = limit - inWindow
if allowed and not admit then remaining = remaining - 1 end
if remaining < 0 then remaining = 0 end
local seconds = 0
if inWindow > 0 then seconds = math.max(1, math.ceil((freeing + window - now) / 1000000)) end
local allowedFlag = 0
if allowed then allowedFlag = 1 end
return { allowedFlag, remaining, seconds }
`;
