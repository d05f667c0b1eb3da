-- wrk script: POST /api/v1/clues/bulk with the 500-word body in $BULK_BODY_FILE and the API key
-- in $CROSSWORD_KEY.
local f = assert(io.open(os.getenv("BULK_BODY_FILE"), "r"))
local body = f:read("*a")
f:close()
local key = os.getenv("CROSSWORD_KEY")
request = function()
  return wrk.format("POST", "/api/v1/clues/bulk", {
    ["Authorization"] = "Bearer " .. key,
    ["Content-Type"] = "application/json",
  }, body)
end
