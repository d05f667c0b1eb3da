-- wrk script: GET /api/v1/puzzles/{id}, rotating over the ids listed one per line in the file
-- named by PUZZLE_IDS, with the API key from the environment (CROSSWORD_KEY).
local key = os.getenv("CROSSWORD_KEY")
local ids = {}
for line in io.lines(os.getenv("PUZZLE_IDS")) do ids[#ids + 1] = line end
local i = 0
request = function()
  i = i % #ids + 1
  return wrk.format("GET", "/api/v1/puzzles/" .. ids[i], { ["Authorization"] = "Bearer " .. key })
end
