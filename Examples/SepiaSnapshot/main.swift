import Pipeline
print("todo")
