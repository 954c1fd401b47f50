/**
 * A batch of decisions of the exact rolling window, run atomically inside Redis, one after the
 * other in the order given: each the same rule as MemoryRateLimiter, over a sorted set per key
 * that holds one member per admitted request, scored with its admission time in whole
 * microseconds (integers up to 2^53 are exact in Lua's doubles, so every difference below is
 * exact and the seconds round exactly as the in-memory limiter's do). Two decisions of one batch
 * on the same key see each other exactly as two separate calls would.
 *
 * KEYS[i]       the set of admissions of decision i's key
 * ARGV[1]       window in milliseconds
 * ARGV[3i - 1]  decision i's limit
 * ARGV[3i]      '1' to admit and count, '0' to peek
 * ARGV[3i + 1]  the caller's time in milliseconds, or '' to read Redis's own clock (TIME, once
 *               per batch), so the clocks of the API instances cannot skew the window
 *
 * Returns, for decision i at 3i - 2, 3i - 1 and 3i: allowed (1 or 0), remaining, seconds until
 * the next slot frees.
 *
 * Every call into Redis costs about two microseconds of Redis's CPU, more than the Lua around it,
 * so each path makes only the calls it needs: a peek at a key with nothing in the window (the
 * invalid-key check of nearly every request) makes one; a refusal or a peek three and writes
 * nothing; an admission three to an empty key, else four, five when it is not the key's only one
 * in the window, and six once per eighth of a window, when it trims the admissions that left the
 * window (and one TIME per batch). A member is
 * its admission time in digits, so reading members without their scores (no double formatted per
 * reply) still gives the times. Numbers go to redis.call as they are: Redis writes them with
 * '%.17g', exact for these integers; only Lua's own number-to-string conversion (concatenation)
 * keeps 14 significant digits, so a suffixed member is built with '%.0f'. Two admissions in the same
 * microsecond (from two instances, a caller's clock that stands still, or two decisions of one
 * batch) get a counter suffix, so neither replaces the other. Members are read and trimmed by
 * rank: once the count of those in the window is known, they are the newest that many, and every
 * other member is older. Admissions that left the window but are not trimmed yet are never
 * counted (ZCOUNT over the window), so earlier versions of this script, which trim on every
 * admission, decide the same on the same sets.
 */
export const slidingLogScript = `
local window = tonumber(ARGV[1]) * 1000
local trimEvery = window / 8
local redisClock
-- Per key, the score of this batch's last admission to it and the suffix that admission took,
-- so the admissions of one batch in one microsecond do not probe every suffix taken before.
local lastScore = {}
local lastSuffix = {}

-- A member's time: the member itself, or what precedes its '-suffix'.
local function timeOf(member)
  return tonumber(member) or tonumber(string.match(member, '^(-?%d+)'))
end

local function decide(key, limit, admit, callerTime)
  local newest = redis.call('ZRANGE', key, -1, -1)[1]
  if not newest and not admit then return 1, limit - 1, 0 end
  local clock
  if callerTime == '' then
    if not redisClock then
      local time = redis.call('TIME')
      redisClock = tonumber(time[1]) * 1000000 + tonumber(time[2])
    end
    clock = redisClock
  else
    clock = math.floor(tonumber(callerTime) * 1000)
  end
  -- A clock that steps back must not reopen slots: time never runs backwards for a key.
  local now = clock
  local inWindow = 0
  if newest then
    newest = timeOf(newest)
    if newest > now then now = newest end
    -- Scores are whole microseconds: the window (now - window, now] starts at now - window + 1.
    inWindow = redis.call('ZCOUNT', key, now - window + 1, '+inf')
  end
  local allowed = inWindow < limit
  local freeing = now
  if allowed and admit then
    -- Admissions before the window can never count again: all but the newest inWindow go, once
    -- per eighth of a window (the first admission in a new eighth), so the set holds at most the
    -- admissions of 1.125 windows, never above twice the limit.
    if newest and math.floor(now / trimEvery) ~= math.floor(newest / trimEvery) then
      redis.call('ZREMRANGEBYRANK', key, 0, -inWindow - 1)
    end
    local member = now
    local suffix = 0
    if lastScore[key] == now then
      suffix = lastSuffix[key] + 1
      member = string.format('%.0f-%d', now, suffix)
    end
    while redis.call('ZADD', key, 'NX', now, member) == 0 do
      suffix = suffix + 1
      member = string.format('%.0f-%d', now, suffix)
    end
    lastScore[key] = now
    lastSuffix[key] = suffix
    inWindow = inWindow + 1
    -- The key is useless once its newest admission has left the window: then it expires.
    redis.call('PEXPIRE', key, math.ceil((now - clock + window) / 1000))
    -- The admissions in the window are the newest inWindow (at most the limit of them): the
    -- oldest of them frees the next slot.
    if inWindow > 1 then freeing = timeOf(redis.call('ZRANGE', key, -inWindow, -inWindow)[1]) end
  elseif inWindow > 0 then
    -- The next slot frees when the count drops below the limit: when the oldest admission in
    -- the window leaves, or (after the limit was lowered below the count) the one that many
    -- later; counted from the newest, the limit-th.
    local rank = -inWindow
    if inWindow > limit then rank = -limit end
    freeing = timeOf(redis.call('ZRANGE', key, rank, rank)[1])
  end
  local remaining = limit - inWindow
  if allowed and not admit then remaining = remaining - 1 end
  if remaining < 0 then remaining = 0 end
  local seconds = 0
  if inWindow > 0 then seconds = math.max(1, math.ceil((freeing + window - now) / 1000000)) end
  if allowed then return 1, remaining, seconds end
  return 0, remaining, seconds
end

local replies = {}
for i = 1, #KEYS do
  local a = 3 * i - 1
  replies[a - 1], replies[a], replies[a + 1] = decide(KEYS[i], tonumber(ARGV[a]), ARGV[a + 1] == '1', ARGV[a + 2])
end
return replies
`;
