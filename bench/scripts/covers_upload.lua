-- wrk script: POST /api/v1/uploads as multipart with the file named in UPLOAD_FILE and the key
-- in COVERS_KEY (environment).
local f = assert(io.open(os.getenv("UPLOAD_FILE"), "rb"))
local file = f:read("*a")
f:close()
local boundary = "wrkBoundary7MA4YWxkTrZu0gW"
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("COVERS_KEY")
wrk.headers["Content-Type"] = "multipart/form-data; boundary=" .. boundary
wrk.body = "--" .. boundary .. "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"photo.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
  .. file .. "\r\n--" .. boundary .. "--\r\n"
