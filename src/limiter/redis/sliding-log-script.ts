/**
 * Admissions a decision reads from the start of its key: all of a short key, the head of a long one.
 * At least the default limit (60 a minute), so a key under it is always decided whole.
 */
export const headAdmissions = 64;

/**
 * Expired admissions a long key may carry at its start before an admission drops them (see below).
 */
export const expiredBeforeTrim = 16;

/**
 * A batch of decisions of the exact rolling window, run atomically inside Redis, one after the
 * other in the order given: each the same rule as MemoryRateLimiter, over one string per key that
 * holds the key's admissions, oldest first, each its time in whole microseconds as an 8-byte
 * big-endian double (`struct.pack('>d', t)`, from the struct library Redis's Lua provides:
 * https://redis.io/docs/latest/develop/programmability/lua-api/#struct-library). Integers up to 2^53
 * are exact in a double, so every difference below is exact and the seconds round exactly as the
 * in-memory limiter's do.
 *
 * KEYS[i]       the admissions of decision i's key
 * ARGV[1]       window in milliseconds
 * ARGV[i + 1]   decision i: its limit alone (`60`) to admit and count on Redis's own clock, what
 *               every API request asks; else `limit,admit,callerTime` (`60,0,` to peek on Redis's
 *               clock), admit '1' to admit and count or '0' to peek, callerTime the caller's time
 *               in milliseconds or '' for Redis's clock. Redis's clock is read once per batch
 *               (TIME), so the clocks of the API instances cannot skew the window. One argument
 *               a decision rather than three: each costs the client its own piece of the command's
 *               text and Redis its own parse (docs/decisions/0013-redis-script-arguments.md).
 *
 * Returns, for decision i at 3i - 2, 3i - 1 and 3i: allowed (1 or 0), remaining, seconds until
 * the next slot frees.
 *
 * Why a string (docs/decisions/0012-redis-sliding-log-as-one-string.md): every call into Redis
 * from Lua has a cost of its own (the command looked up, its arguments and reply converted, its
 * statistics kept), a large share of a decision's, and a sorted set took five per admission. Bytes
 * cost too: Redis's Lua hashes every byte of each string it makes (luaS_newlstr, with a step of 1,
 * in https://github.com/redis/redis/blob/7.0/deps/lua/src/lstring.c), and copies it.
 *
 * Admissions are appended in time order (time never runs backwards for a key), so the newest is
 * the last 8 bytes and those before the window are the first few, counted one by one and past that
 * by a binary search over the fixed-width entries. Admissions a window older than the key's newest
 * can never count again (no later decision of the key is earlier); those between that and a
 * decision's own window do not count now, but a later clock stepping back towards the newest
 * admission would count them, so only an admission drops anything.
 *
 * Each decision reads the key's first `headAdmissions` (one GETRANGE). A key that holds no more
 * (a limit of 60 a minute holds at most 60 admissions, nearly always fewer) is then read whole, and
 * decided as it always was: an admission rewrites it without what can no longer count, in one SET
 * with its expiry (PX); a refusal or a peek only reads. Two calls into Redis per admission.
 *
 * A longer key (a high limit, used at a high rate) is never read whole while it is in use: its
 * length (STRLEN) and newest admission (GETRANGE of the last 8 bytes) come with the head, and an
 * admission appends 8 bytes (APPEND) and renews the expiry (PEXPIRE), five calls in all, whatever
 * the key's length. Expired admissions stay at the start until `expiredBeforeTrim` have gathered,
 * and the admission that finds them rewrites the key without them; a key whose whole head has
 * expired (it idled longer than its admissions take to leave the window) is read whole once, as
 * a short key is. Reading and rewriting every admission of a window on every decision, as a short
 * key is decided, cost Redis in proportion to the key's length; decided this way, a decision costs
 * about the same for 3,000 admissions as for 300 (`npm run bench:redis-limiter`;
 * docs/decisions/0012-redis-sliding-log-as-one-string.md).
 *
 * Two admissions in the same microsecond (two instances, a caller's clock that stands still, two
 * decisions of one batch) are two entries, and both count. Each decision writes before the next
 * reads, so two decisions of one batch on one key see each other exactly as two calls would.
 */
export const slidingLogScript = `
local window = tonumber(ARGV[1]) * 1000
local unpack, pack = struct.unpack, struct.pack
local floor, ceil, max = math.floor, math.ceil, math.max
local headEntries = ${headAdmissions}
local headBytes = headEntries * 8
-- The bounds of the reads every decision makes, as strings: Redis 7.0 formats each number
-- passed to redis.call with printf's '%.17g', a visible share of its CPU under load, and takes a
-- string as it is (docs/decisions/0013-redis-script-arguments.md).
local headLast = '${headAdmissions * 8 - 1}'
local trimAt = ${expiredBeforeTrim}
local redisClock

local function clockFor(callerTime)
  if callerTime ~= '' then return floor(tonumber(callerTime) * 1000) end
  if not redisClock then
    local time = redis.call('TIME')
    redisClock = tonumber(time[1]) * 1000000 + tonumber(time[2])
  end
  return redisClock
end

-- The admission at position index (0 for the oldest).
local function admittedAt(admissions, index)
  return (unpack('>d', admissions, index * 8 + 1))
end

-- How many of the size admissions are at or before cutoff: the oldest that many. Only a few
-- usually are: they are counted one by one, and only past them a binary search counts the rest.
local function countAtOrBefore(admissions, size, cutoff)
  local low = 0
  while low < size and low < 4 do
    if admittedAt(admissions, low) > cutoff then return low end
    low = low + 1
  end
  local high = size
  while low < high do
    local middle = floor((low + high) / 2)
    if admittedAt(admissions, middle) > cutoff then high = middle else low = middle + 1 end
  end
  return low
end

-- The key is useless once its newest admission, now, has left the window: it expires a window
-- from now, or later when the clock is behind the key's newest. The window goes as it came, a
-- string: Redis would format a number (with '%.17g') on every SET.
local function expiryFor(now, clock)
  if now > clock then return ceil((now - clock + window) / 1000) end
  return ARGV[1]
end

-- The three replies, for inWindow admissions in the window after the decision, the next slot
-- freeing when the admission at freeing leaves it.
local function reply(allowed, limit, admit, inWindow, freeing, now)
  local remaining = limit - inWindow
  if allowed and not admit then remaining = remaining - 1 end
  if remaining < 0 then remaining = 0 end
  local seconds = 0
  if inWindow > 0 then seconds = max(1, ceil((freeing + window - now) / 1000000)) end
  if allowed then return 1, remaining, seconds end
  return 0, remaining, seconds
end

-- A key read whole.
local function decideWhole(key, limit, admit, callerTime, admissions)
  local size = #admissions / 8
  if size == 0 and not admit then return 1, limit - 1, 0 end
  local clock = clockFor(callerTime)
  -- A clock that steps back must not reopen slots: time never runs backwards for a key.
  local now = clock
  if size > 0 then now = max(clock, admittedAt(admissions, size - 1)) end
  -- Times are whole microseconds: the window (now - window, now] starts after now - window.
  local before = countAtOrBefore(admissions, size, now - window)
  local inWindow = size - before
  local allowed = inWindow < limit
  if allowed and admit then
    -- Those still in the window, then this admission; the rest can never count again.
    if before > 0 then admissions = string.sub(admissions, before * 8 + 1) end
    admissions = admissions .. pack('>d', now)
    inWindow = inWindow + 1
    size = inWindow
    redis.call('SET', key, admissions, 'PX', expiryFor(now, clock))
  end
  -- The next slot frees when the count drops below the limit: when the oldest admission in the
  -- window leaves, or (after the limit was lowered below the count) the one that many later.
  local freeing = now
  if inWindow > 0 then freeing = admittedAt(admissions, size - inWindow + max(0, inWindow - limit)) end
  return reply(allowed, limit, admit, inWindow, freeing, now)
end

-- A key longer than its head, of which head holds the first headEntries admissions.
local function decideLong(key, limit, admit, callerTime, head)
  local clock = clockFor(callerTime)
  local now = max(clock, (unpack('>d', redis.call('GETRANGE', key, '-8', '-1'))))
  local cutoff = now - window
  if admittedAt(head, headEntries - 1) <= cutoff then
    return decideWhole(key, limit, admit, callerTime, redis.call('GET', key))
  end
  local size = redis.call('STRLEN', key) / 8
  local before = countAtOrBefore(head, headEntries, cutoff)
  local inWindow = size - before
  local allowed = inWindow < limit
  if allowed and admit then
    local expiry = expiryFor(now, clock)
    if before >= trimAt then
      local kept = redis.call('GETRANGE', key, before * 8, -1)
      redis.call('SET', key, kept .. pack('>d', now), 'PX', expiry)
    else
      redis.call('APPEND', key, pack('>d', now))
      redis.call('PEXPIRE', key, expiry)
    end
    inWindow = inWindow + 1
  end
  -- Counted from the key as it was read: an admission can only free a slot later than those.
  local index = before + max(0, inWindow - limit)
  local freeing
  if index < headEntries then freeing = admittedAt(head, index)
  else freeing = (unpack('>d', redis.call('GETRANGE', key, index * 8, index * 8 + 7))) end
  return reply(allowed, limit, admit, inWindow, freeing, now)
end

local function decide(key, limit, admit, callerTime)
  local head = redis.call('GETRANGE', key, '0', headLast)
  if #head < headBytes then return decideWhole(key, limit, admit, callerTime, head) end
  return decideLong(key, limit, admit, callerTime, head)
end

-- A decision's limit, whether it admits, and the caller's time ('' for Redis's clock).
local function specOf(spec)
  local limit = tonumber(spec)
  if limit then return limit, true, '' end
  local limitText, admit, callerTime = string.match(spec, '^(%d+),([01]),(.*)$')
  return tonumber(limitText), admit == '1', callerTime
end

local replies = {}
for i = 1, #KEYS do
  local limit, admit, callerTime = specOf(ARGV[i + 1])
  local a = 3 * i - 1
  replies[a - 1], replies[a], replies[a + 1] = decide(KEYS[i], limit, admit, callerTime)
end
return replies
`;
