print("realm-bench")
