// isolation-bench-http: a small load generator for the benchmarks (libcurl, keep-alive).
//   isolation-bench-http URL BODYFILE [--bearer TOKEN] [--requests N] [--connections C]
// POSTs BODYFILE (JSON) N times over C keep-alive connections (threads) and prints one JSON line:
// {"requests", "failed", "seconds", "rps", "mibPerSecond", "p50ms", "p99ms"}. Latency is per request.
#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

size_t sink(char *, size_t size, size_t n, void *userdata)
{
    *static_cast<size_t *>(userdata) += size * n;
    return size * n;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s URL BODYFILE [--bearer T] [--requests N] [--connections C]\n", argv[0]);
        return 2;
    }
    const std::string url = argv[1];
    std::ifstream file(argv[2], std::ios::binary);
    std::stringstream buffer;
    buffer << file.rdbuf();
    const std::string body = buffer.str();
    std::string bearer;
    int requests = 200, connections = 1;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--bearer"))
            bearer = argv[i + 1];
        else if (!std::strcmp(argv[i], "--requests"))
            requests = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--connections"))
            connections = std::atoi(argv[i + 1]);
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    std::atomic<int> next{0}, failed{0};
    std::atomic<size_t> received{0};
    std::mutex mutex;
    std::vector<double> latencies;
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    for (int c = 0; c < connections; ++c) {
        threads.emplace_back([&] {
            CURL *curl = curl_easy_init();
            curl_slist *headers = curl_slist_append(nullptr, "Content-Type: application/json");
            headers = curl_slist_append(headers, "Expect:");
            if (!bearer.empty())
                headers = curl_slist_append(headers, ("Authorization: Bearer " + bearer).c_str());
            size_t got = 0;
            curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
            curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
            curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
            curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.size()));
            curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &sink);
            curl_easy_setopt(curl, CURLOPT_WRITEDATA, &got);
            curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
            std::vector<double> mine;
            while (next.fetch_add(1) < requests) {
                got = 0;
                const auto t0 = std::chrono::steady_clock::now();
                const CURLcode rc = curl_easy_perform(curl);
                long status = 0;
                curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
                const auto t1 = std::chrono::steady_clock::now();
                if (rc != CURLE_OK || status != 200)
                    ++failed;
                received += got;
                mine.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
            }
            curl_slist_free_all(headers);
            curl_easy_cleanup(curl);
            std::lock_guard<std::mutex> lock(mutex);
            latencies.insert(latencies.end(), mine.begin(), mine.end());
        });
    }
    for (auto &t : threads)
        t.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::sort(latencies.begin(), latencies.end());
    auto pct = [&](double p) { return latencies.empty() ? 0.0 : latencies[size_t(p * double(latencies.size() - 1))]; };
    const double bytes = double(body.size()) * requests + double(received.load());
    std::printf("{\"requests\": %d, \"failed\": %d, \"seconds\": %.3f, \"rps\": %.1f, \"mibPerSecond\": %.2f, "
                "\"p50ms\": %.3f, \"p99ms\": %.3f}\n",
                requests, failed.load(), seconds, requests / seconds, bytes / seconds / 1048576.0, pct(0.5), pct(0.99));
    curl_global_cleanup();
    return failed.load() == 0 ? 0 : 1;
}
