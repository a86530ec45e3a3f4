// Buttons in the lesson's text that set the widget up: "Change the rewards" and "Two learners".

export function setUpPresets(widget) {
  document.querySelectorAll("button[data-reward]").forEach((button) => button.addEventListener("click", () => {
    const reward = button.dataset.reward.split(",").map(Number);
    const current = widget.readSettings();
    widget.writeSettings({ ...current, reward });
    document.getElementById("machine-settings").open = true;
    widget.root.scrollIntoView({ block: "start" });
    widget.start().then(() => widget.$("play-hundred").focus());
  }));
  const both = document.getElementById("two-learners-try");
  if (both) both.addEventListener("click", async () => {
    const select = widget.$("opponent");
    select.value = "menace";
    select.dispatchEvent(new Event("change"));
    widget.root.scrollIntoView({ block: "start" });
    await widget.start();
    if (!widget.playingOn) widget.togglePlayOn();
    widget.$("play-on").focus();
  });
}
