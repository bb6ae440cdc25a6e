-- wrk script: PUT /v1/installations/{id} with a fresh installation id and APNs token per request.
-- Needs TIDINGS_APP_KEY in the environment.
--
-- wrk shares the cores with the server, so what does not change between requests (the headers, the body's
-- fixed fields) is made once in `init`, and a request formats only its id, token and user.
local key = os.getenv("TIDINGS_APP_KEY")
local counter = 0
local thread_tag = 0

function setup(thread)
    thread_tag = thread_tag + 1
    thread:set("tag", thread_tag)
end

function init(args)
    -- BENCH_SEED tells apart several wrk processes started in the same second.
    math.randomseed(os.time() + (tag or 0) + 1000 * tonumber(os.getenv("BENCH_SEED") or "0"))
    prefix = string.format("%08x", math.random(0, 0x7fffffff))
    id_format = prefix .. string.format("-%04x-4000-8000-", tag or 0) .. "%012x"
    headers = { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }
    -- The 64-hex-digit token is the thread's prefix, the counter in 16 digits three times, and 8 more.
    body_format = '{"platform":"ios","apns_token":"' .. prefix .. '%016x%016x%016x%08x","environment":"production",' ..
        '"user_id":"user-' .. prefix .. '-%d","consents":{"notifications":true,"ads":false},' ..
        '"permission":"authorized","locale":"ja_JP","timezone":"Asia/Tokyo","app_version":"1.0.0",' ..
        '"sdk_version":"0.1.0","os_version":"18.1"}'
end

function request()
    counter = counter + 1
    local body = string.format(body_format, counter, counter, counter, counter % 0x100000000, counter)
    return wrk.format("PUT", "/v1/installations/" .. string.format(id_format, counter), headers, body)
end

function response(status, headers, body)
    if status ~= 200 and status ~= 201 then
        io.stderr:write("unexpected status " .. status .. ": " .. body .. "\n")
    end
end
