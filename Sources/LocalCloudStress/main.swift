print("stress: not yet")
