-- wrk script: POST /api/v1/puzzles with a 15x15 draft (a standard-looking block pattern, every
-- entry clued: about 3 KB of JSON) and the API key from the environment (CROSSWORD_KEY).
local key = os.getenv("CROSSWORD_KEY")
local body = io.open(os.getenv("PUZZLE_BODY")):read("*a")
request = function()
  return wrk.format("POST", "/api/v1/puzzles", { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }, body)
end
