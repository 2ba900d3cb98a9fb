-- refundChecks (scripts.go): gives back one request to every bucket of
-- KEYS, undoing a charge of allowChecks (an earlier group's on a Cluster,
-- when a later group refused or failed): the theoretical arrival time moves
-- back one emission interval, never before now (a bucket that has drained
-- since needs nothing back).
--
-- KEYS: the buckets. ARGV: the emission interval in seconds of each. Reply: 0.
redis.replicate_commands()
local jan_1_2017 = 1483228800
local now = redis.call("TIME")
now = (now[1] - jan_1_2017) + (now[2] / 1000000)
for i = 1, #KEYS do
  local tat = redis.call("GET", KEYS[i])
  if tat then
    local new_tat = tonumber(tat) - tonumber(ARGV[i])
    if new_tat > now then
      redis.call("SET", KEYS[i], new_tat, "EX", math.ceil(new_tat - now))
    else
      redis.call("DEL", KEYS[i])
    end
  end
end
return 0
