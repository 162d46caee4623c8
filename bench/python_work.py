# A Python workload for scripts/bench.sh: imports json, decimal and asyncio, then does a
# little of each (many small file reads and stats happen while importing).
import asyncio
import decimal
import json

rows = [{"k": i, "v": str(decimal.Decimal(i) / 7)} for i in range(5000)]
text = json.dumps(rows)


async def main():
    await asyncio.sleep(0)
    return len(json.loads(text))


print(asyncio.run(main()))
