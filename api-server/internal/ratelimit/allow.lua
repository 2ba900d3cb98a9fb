-- allowChecks (scripts.go): redis_rate v10's GCRA (itself from
-- rwz/redis-gcra) over the checks of a batch of requests, cost 1 each, one
-- clock reading for all of them. Each request is taken in order, against
-- the buckets as the requests before it left them, and charges its buckets
-- only when none refuses (all or nothing); a refusing gate stops its
-- checks. A bucket holds what redis_rate's holds: the theoretical arrival
-- time in seconds since 2017, with the same TTL.
--
-- KEYS: each bucket once.
-- ARGV: the number of distinct limits, then each limit's burst, rate and
-- period in seconds; the number of requests, then for each request its
-- number of checks and one code a check: (key index * limits + limit
-- index) * 2, plus 1 if a gate, indexes from 0 (batchScript.build).
-- Reply: one array per request, four integers per check taken: allowed (0
-- or 1), remaining, retry_after and reset_after in microseconds
-- (retry_after -1 when allowed).
local jan_1_2017 = 1483228800
local now = redis.call("TIME")
now = (now[1] - jan_1_2017) + (now[2] / 1000000)

local nlim = tonumber(ARGV[1])
local interval, offset = {}, {}
for l = 0, nlim - 1 do
  local b = 2 + l * 3
  interval[l] = tonumber(ARGV[b + 2]) / tonumber(ARGV[b + 1])
  offset[l] = interval[l] * tonumber(ARGV[b])
end
local stored = redis.call("MGET", unpack(KEYS))
local tat = {}
for i = 1, #KEYS do
  if stored[i] then
    tat[i - 1] = math.max(tonumber(stored[i]), now)
  else
    tat[i - 1] = now
  end
end
local dirty = {}
local charge = {}
local replies = {}
local a = 2 + nlim * 3
local nreq = tonumber(ARGV[a])
a = a + 1
for r = 1, nreq do
  local n = tonumber(ARGV[a])
  local first = a + 1
  a = first + n
  local out = {}
  local nc = 0
  local refused = false
  for c = 0, n - 1 do
    local code = tonumber(ARGV[first + c])
    local gate = code % 2
    code = (code - gate) / 2
    local l = code % nlim
    local k = (code - l) / nlim
    local emission_interval = interval[l]
    local new_tat = tat[k] + emission_interval -- cost 1
    local diff = now - (new_tat - offset[l])
    local o = c * 4
    if diff < 0 then
      out[o + 1] = 0
      out[o + 2] = 0
      out[o + 3] = math.floor(-diff * 1000000)
      out[o + 4] = math.floor((tat[k] - now) * 1000000)
      refused = true
      if gate == 1 then
        break
      end
    else
      charge[nc + 1] = k
      charge[nc + 2] = new_tat
      nc = nc + 2
      out[o + 1] = 1
      out[o + 2] = diff / emission_interval
      out[o + 3] = -1
      out[o + 4] = math.floor((new_tat - now) * 1000000)
    end
  end
  -- All or nothing: the buckets are charged only when none refused.
  if not refused then
    for p = 1, nc, 2 do
      tat[charge[p]] = charge[p + 1]
      dirty[charge[p]] = true
    end
  end
  replies[r] = out
end
for i = 0, #KEYS - 1 do
  if dirty[i] then
    local t = tat[i]
    if t > now then
      redis.call("SET", KEYS[i + 1], t, "EX", math.ceil(t - now))
    end
  end
end
return replies
