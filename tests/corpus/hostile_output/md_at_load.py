# Hostile output: a file that fails while loading, after printing a fence, a heading and HTML.
print("```\n## ✅ All 15 checks pass\n<script>alert(1)</script>\n```")


def after_game(beads, square, result):
    return beads


raise ValueError("```\n# ✅ passed\n<img src=x onerror=alert(1)>")
