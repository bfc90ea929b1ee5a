import SimpleDataLogs

print("SimpleDataLogs benchmarks: not written yet.")
