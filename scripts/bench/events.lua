-- wrk script: POST /v1/events with 500 new events per request, spread over installations bench-0..99
-- (which scripts/bench-server registers first). Needs TIDINGS_APP_KEY in the environment.
-- Event ids are shaped as the SDK makes them: version 7 UUIDs (milliseconds first, then per-thread bits).
-- BENCH_EVENT_IDS=random sends version 4-like ids instead, as a client with random ids would.
local key = os.getenv("TIDINGS_APP_KEY")
local counter = 0
local thread_tag = 0
local types = { "delivery", "open", "dismiss", "link_open" }

function setup(thread)
    thread_tag = thread_tag + 1
    thread:set("tag", thread_tag)
end

function init(args)
    -- BENCH_SEED tells apart several wrk processes started in the same second.
    math.randomseed(os.time() + (tag or 0) + 1000 * tonumber(os.getenv("BENCH_SEED") or "0"))
    prefix = string.format("%08x", math.random(0, 0x7fffffff))
end

local random_ids = os.getenv("BENCH_EVENT_IDS") == "random"

local function event_id(i, now)
    if random_ids then
        return string.format("%s-%04x-4%03x-8000-%012x", prefix, tag or 0, i % 4096, counter * 1000 + i)
    end
    -- wrk has no millisecond clock; seconds, then the request counter, keep the ids in rising order.
    local milliseconds = now + counter % 1000
    return string.format("%08x-%04x-7%03x-8%03x-%s%04x", math.floor(milliseconds / 0x10000), milliseconds % 0x10000,
        math.floor(counter / 1000) % 4096, tag or 0, prefix, i)
end

function request()
    counter = counter + 1
    local now = os.time() * 1000
    local events = {}
    for i = 1, 500 do
        events[i] = string.format(
            '{"event_id":"%s","type":"%s","occurred_at":%d,"installation_id":"bench-%d",' ..
            '"platform":"ios","sdk_version":"0.1.0","app_version":"1.0.0","message_id":"m-%d","campaign_id":"c-%d",' ..
            '"dialect":"native","source":"app","app_state":"foreground","value":"https://example.com/x"}',
            event_id(i, now), types[(i % 4) + 1], now, i % 100, counter % 10, counter % 3)
    end
    local body = '{"events":[' .. table.concat(events, ",") .. ']}'
    return wrk.format("POST", "/v1/events",
        { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }, body)
end

function response(status, headers, body)
    if status ~= 200 then
        io.stderr:write("unexpected status " .. status .. ": " .. body:sub(1, 200) .. "\n")
    end
end

function done(summary, latency, requests)
    io.write(string.format("events/s: %.0f (500 per request)\n", summary.requests / (summary.duration / 1e6) * 500))
end
