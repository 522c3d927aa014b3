-- The bench's wrk script (test/bench/wrk.ts runs it): numbered request bodies, every response
-- checked for a marker, and one JSON line of results at the end.
-- Arguments after --: method, body prefix, body suffix, marker, ending (the last three may be "").

local threads = {}
local method, prefix, suffix, marker, ending
sent = 0
mismatches = 0

function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

function init(args)
  method, prefix, suffix, marker, ending = args[1], args[2] or "", args[3] or "", args[4] or "", args[5] or ""
  wrk.method = method
end

function request()
  sent = sent + 1
  if method == "GET" then
    return wrk.format()
  end
  -- Unique across threads and requests: the hub deduplicates by messageId.
  return wrk.format(nil, nil, nil, prefix .. tid .. "-" .. sent .. suffix)
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    return
  end
  local ok = marker == "" or string.find(body, marker, 1, true) ~= nil
  if ok and ending ~= "" then
    ok = string.sub(body, -#ending) == ending
  end
  if not ok then
    mismatches = mismatches + 1
  end
end

function done(summary, latency, requests)
  local total_sent, total_mismatches = 0, 0
  for _, thread in ipairs(threads) do
    total_sent = total_sent + thread:get("sent")
    total_mismatches = total_mismatches + thread:get("mismatches")
  end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"durationUs":%d,"sent":%d,"mismatches":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%d,"p99":%d,"p999":%d}\n',
    summary.requests, summary.duration, total_sent, total_mismatches, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9)))
end
