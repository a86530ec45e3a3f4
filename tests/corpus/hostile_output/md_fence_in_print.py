# Hostile output: what it prints closes the markdown fence, forges a verdict heading and a live <img onerror>.
FORGED = (
    "```\n~~~\n</pre>\n## ✅ All 15 checks pass\n\n**Score 15.0 / 15.0**\n\n"
    "<img src=x onerror=alert(document.domain)>\n```"
)


def after_game(beads, square, result):
    print(FORGED)
    return beads
