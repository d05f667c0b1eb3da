-- wrk script for the soak: bench/scripts/words.lua's requests, each connection pausing 1 ms
-- between a response and its next request, so that word searches arrive at a steady high rate
-- (about 5,000 to 7,000 a second over 8 connections here) instead of as fast as the box allows.
dofile("bench/scripts/words.lua")
delay = function()
  return 1
end
