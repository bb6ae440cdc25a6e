-- wrk script: PUT /v1/installations/{id} with a fresh installation id and APNs token per request.
-- Needs TIDINGS_APP_KEY in the environment.
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
end

function request()
    counter = counter + 1
    local id = string.format("%s-%04x-4000-8000-%012x", prefix, tag or 0, counter)
    local token = string.rep(string.format("%016x", counter), 4)
    local body = string.format(
        '{"platform":"ios","apns_token":"%s","environment":"production","user_id":"user-%s-%d",' ..
        '"consents":{"notifications":true,"ads":false},"permission":"authorized","locale":"ja_JP",' ..
        '"timezone":"Asia/Tokyo","app_version":"1.0.0","sdk_version":"0.1.0","os_version":"18.1"}',
        prefix .. token:sub(9), prefix, counter)
    return wrk.format("PUT", "/v1/installations/" .. id,
        { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }, body)
end

function response(status, headers, body)
    if status ~= 200 and status ~= 201 then
        io.stderr:write("unexpected status " .. status .. ": " .. body .. "\n")
    end
end
