-- wrk script: POST /v1/events with 500 new events per request, each request from one installation as a device
-- sends it (docs/events.md): its id in X-Tidings-Installation and its secret, rotating per request over the
-- installations scripts/bench-server registered. Needs TIDINGS_APP_KEY in the environment, and
-- BENCH_INSTALLATIONS naming a file of "id secret" lines (the registrations' answers).
-- Event ids are shaped as the SDK makes them: version 7 UUIDs (milliseconds first, then per-thread bits).
-- BENCH_EVENT_IDS=random sends version 4-like ids instead, as a client with random ids would.
--
-- wrk shares the cores with the server, so a request is assembled from pieces made once: what varies per
-- event (its id's last group, type) is formatted in `init`, what varies per request (the id's time and
-- counter, occurred_at, message, campaign, installation) once per request, and one table.concat joins them.
-- Formatting every event of every request made wrk use about half as much CPU again (BENCHMARKS.md).
local key = os.getenv("TIDINGS_APP_KEY")
local counter = 0
local thread_tag = 0
local batch = 500
local types = { "delivery", "open", "dismiss", "link_open" }
local random_ids = os.getenv("BENCH_EVENT_IDS") == "random"
-- { id, secret } of each registered installation, read in `init`.
local installations = {}

function setup(thread)
    thread_tag = thread_tag + 1
    thread:set("tag", thread_tag)
end

-- pieces[5 * i - 4 .. 5 * i] make event i: its opening (made once), its id's start (per request), the id's
-- end and the fields fixed by i (made once), occurred_at and then message, campaign and installation (per
-- request).
local pieces = {}

function init(args)
    -- BENCH_SEED tells apart several wrk processes started in the same second.
    math.randomseed(os.time() + (tag or 0) + 1000 * tonumber(os.getenv("BENCH_SEED") or "0"))
    prefix = string.format("%08x", math.random(0, 0x7fffffff))
    local list = assert(os.getenv("BENCH_INSTALLATIONS"), "BENCH_INSTALLATIONS is not set")
    for line in io.lines(list) do
        local id, secret = line:match("^(%S+) (%S+)$")
        if id then installations[#installations + 1] = { id, secret } end
    end
    assert(#installations > 0, "no installations in " .. list)
    for i = 1, batch do
        pieces[5 * i - 4] = i == 1 and '{"events":[{"event_id":"' or ',{"event_id":"'
        -- A version 7 id ends in the thread's prefix and i; a random one is made whole per request.
        local ending = random_ids and "" or string.format("%04x", i)
        pieces[5 * i - 2] = ending .. string.format(
            '","type":"%s","platform":"ios","sdk_version":"0.1.0",' ..
            '"app_version":"1.0.0","dialect":"native","source":"app","app_state":"foreground",' ..
            '"value":"https://example.com/x","occurred_at":', types[(i % 4) + 1])
    end
    headers = { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }
end

function request()
    counter = counter + 1
    local now = os.time() * 1000
    -- The threads start apart in the list, so concurrent requests come from different installations.
    local installation = installations[(counter + 37 * (tag or 0)) % #installations + 1]
    headers["X-Tidings-Installation"] = installation[1]
    headers["X-Tidings-Installation-Secret"] = installation[2]
    local context = string.format(',"message_id":"m-%d","campaign_id":"c-%d","installation_id":"%s"}',
        counter % 10, counter % 3, installation[1])
    local occurred = tostring(now)
    if random_ids then
        for i = 1, batch do
            pieces[5 * i - 3] = string.format("%s-%04x-4%03x-8000-%012x", prefix, tag or 0, i % 4096,
                counter * 1000 + i)
        end
    else
        -- wrk has no millisecond clock; seconds, then the request counter, keep the ids in rising order.
        local milliseconds = now + counter % 1000
        local id = string.format("%08x-%04x-7%03x-8%03x-%s", math.floor(milliseconds / 0x10000),
            milliseconds % 0x10000, math.floor(counter / 1000) % 4096, tag or 0, prefix)
        for i = 1, batch do
            pieces[5 * i - 3] = id
        end
    end
    for i = 1, batch do
        pieces[5 * i - 1] = occurred
        pieces[5 * i] = context
    end
    return wrk.format("POST", "/v1/events", headers, table.concat(pieces) .. "]}")
end

function response(status, headers, body)
    if status ~= 200 then
        io.stderr:write("unexpected status " .. status .. ": " .. body:sub(1, 200) .. "\n")
    end
end

function done(summary, latency, requests)
    io.write(string.format("events/s: %.0f (500 per request)\n", summary.requests / (summary.duration / 1e6) * 500))
end
