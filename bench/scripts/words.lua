-- wrk script: GET /api/v1/words with a rotating set of crossword patterns and the API key from
-- the environment (CROSSWORD_KEY).
local patterns = {
  "C_T", "S_A_E", "?????", "Q__", "___CREAM", "A_B_C", "__ING", "T__E", "R_____", "_E_E_",
  "STR___", "__A__", "P_Z_L_", "_X_", "O__O", "M_S_C", "___S", "L____E", "H_P", "_O_E_T",
}
local key = os.getenv("CROSSWORD_KEY")
local i = 0
request = function()
  i = i % #patterns + 1
  return wrk.format("GET", "/api/v1/words?pattern=" .. patterns[i] .. "&limit=50", { ["Authorization"] = "Bearer " .. key })
end
