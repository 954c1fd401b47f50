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
 * ARGV[3i - 1]  decision i's limit
 * ARGV[3i]      '1' to admit and count, '0' to peek
 * ARGV[3i + 1]  the caller's time in milliseconds, or '' to read Redis's own clock (TIME, once
 *               per batch), so the clocks of the API instances cannot skew the window
 *
 * Returns, for decision i at 3i - 2, 3i - 1 and 3i: allowed (1 or 0), remaining, seconds until
 * the next slot frees.
 *
 * Why a string: every call into Redis from Lua has a cost of its own (the command looked up, its
 * arguments and reply converted, its statistics kept) larger than the Lua around it, and a sorted
 * set took five per admission. A string takes two: a GET, and when the decision admits, one SET
 * that writes the admissions and their expiry together (its PX option:
 * https://redis.io/docs/latest/commands/set/). A refusal or a peek only reads. Bytes cost too:
 * Redis's Lua hashes every byte of each string it makes (luaS_newlstr, with a step of 1, in
 * https://github.com/redis/redis/blob/7.0/deps/lua/src/lstring.c), here the GET's reply and the
 * rewritten value, so a key holds only admissions that can still count.
 *
 * The newest admission is the last 8 bytes. Admissions are appended in time order (time never
 * runs backwards for a key), so those before the window are the first few, counted one by one and
 * past that by a binary search over the fixed-width entries. An admission rewrites the string
 * without those a window older than itself, the key's newest then: no later decision of the key is
 * earlier, so they can never count again. A refusal or a peek keeps everything: what its clock
 * places before the window, a later clock stepping back towards the newest admission would count.
 * A key thus holds 8 bytes per admission of one window, and each of its decisions reads them (and
 * an admission writes them): a few microseconds for a hundred, more for a key that admits
 * thousands per window.
 *
 * Two admissions in the same microsecond (two instances, a caller's clock that stands still, two
 * decisions of one batch) are two entries, and both count. Each decision writes before the next
 * reads, so two decisions of one batch on one key see each other exactly as two calls would.
 */
export const slidingLogScript = `
local window = tonumber(ARGV[1]) * 1000
local unpack, pack = struct.unpack, struct.pack
local floor, ceil, max = math.floor, math.ceil, math.max
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

-- How many of the size admissions are at or before cutoff: the oldest that many. An admission
-- drops those that left the window, so since then only a few can have: they are counted one by
-- one, and only past them a binary search counts the rest.
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

local function decide(key, limit, admit, callerTime)
  local admissions = redis.call('GET', key) or ''
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
    -- The key is useless once its newest admission, this one, has left the window: it expires a
    -- window from now, or later when the clock is behind the key's newest. The window goes as it
    -- came, a string: Redis would format a number (with '%.17g') on every SET.
    local ttl = ARGV[1]
    if now > clock then ttl = ceil((now - clock + window) / 1000) end
    redis.call('SET', key, admissions, 'PX', ttl)
  end
  local remaining = limit - inWindow
  if allowed and not admit then remaining = remaining - 1 end
  if remaining < 0 then remaining = 0 end
  local seconds = 0
  if inWindow > 0 then
    -- The next slot frees when the count drops below the limit: when the oldest admission in the
    -- window leaves, or (after the limit was lowered below the count) the one that many later.
    local freeing = admittedAt(admissions, size - inWindow + max(0, inWindow - limit))
    seconds = max(1, ceil((freeing + window - now) / 1000000))
  end
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
