// The MENACE widget: buttons and pictures around the server's engine.
//
// The browser keeps only the seed and the log of what was pressed; every game is played
// by the server (POST /lesson/api/widget), which answers with the game to show, the
// chart's data and the tallies. The rules of the game live on the server, once.

import { el, postJSON } from "./api.js";
import { card, drawSquares, describeBeads, miniBoard, resignedCard, showChange } from "./board.js";
import { drawChart } from "./chart.js";
import { showBoxes } from "./boxes.js";
import { arrowKey } from "./keys.js";
import { say, sayN, squareName } from "./words.js";

const OPPONENT_NAMES = { perfect: "opponentPerfect", random: "opponentRandom", menace: "opponentMenace", you: "opponentYou" };
const MICHIE = { reward: [3, 1, -1], start: [4, 3, 2, 1], symmetry: true };
const MAX_GAMES = 5000;
const reducedMotion = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// A focused button that became disabled (a square just played) has lost the focus too, though
// the browser may still report it as the active element for a moment.
const focusLost = () => !document.activeElement || document.activeElement === document.body || document.activeElement.disabled === true;

export class Widget {
  constructor(root) {
    this.root = root;
    this.$ = (id) => root.querySelector(`#${id}`);
    this.squares = Array.from(root.querySelectorAll(".square"));
    this.seed = Number(root.dataset.seed) || 0;
    this.log = [];
    this.summary = null;
    this.human = null; // O's moves so far in a game against you
    this.busy = false;
    this.settings = MICHIE;
    this.playingOn = false;
    this.delay = Number(root.dataset.delay || (reducedMotion() ? 60 : 550));
    this.$("start").addEventListener("click", () => this.start());
    this.$("play-one").addEventListener("click", () => this.playOne());
    this.$("play-hundred").addEventListener("click", () => this.playMany(100));
    this.$("show-boxes").addEventListener("click", () => this.toggleBoxes());
    this.$("opponent").addEventListener("change", () => this.opponentChanged());
    this.$("play-on").addEventListener("click", () => this.togglePlayOn());
    this.$("michie").addEventListener("click", () => this.writeSettings(MICHIE));
    this.$("apply-settings").addEventListener("click", () => this.start());
    this.squares.forEach((button) => button.addEventListener("click", () => this.humanMove(Number(button.dataset.square))));
    this.squares.forEach((button, index) => button.addEventListener("keydown", (event) => this.arrowKeys(event, index)));
    this.start();
  }

  get opponent() {
    return this.$("opponent").value;
  }

  setStatus(text) {
    this.$("status").textContent = text;
  }

  setBusy(busy) {
    this.busy = busy;
    this.root.classList.toggle("is-busy", busy);
    this.root.setAttribute("aria-busy", busy ? "true" : "false");
    for (const id of ["start", "play-one", "show-boxes", "apply-settings"]) this.$(id).disabled = busy || this.playingOn;
    this.$("play-hundred").disabled = busy || this.playingOn || this.opponent === "you";
    this.$("play-on").disabled = this.opponent === "you";
  }

  /** The numbers in the settings panel, checked; Start uses them (an empty or bad box keeps Michie's). */
  readSettings() {
    const number = (id, low, high, fallback) => {
      const value = Number.parseInt(this.$(id).value, 10);
      return Number.isFinite(value) && value >= low && value <= high ? value : fallback;
    };
    const settings = {
      reward: ["win", "draw", "loss"].map((name, i) => number(`reward-${name}`, -10, 10, MICHIE.reward[i])),
      start: [1, 2, 3, 4].map((n, i) => number(`start-${n}`, 1, 99, MICHIE.start[i])),
      symmetry: this.$("symmetry").checked,
    };
    this.writeSettings(settings);
    return settings;
  }

  writeSettings(settings) {
    ["win", "draw", "loss"].forEach((name, i) => { this.$(`reward-${name}`).value = String(settings.reward[i]); });
    [1, 2, 3, 4].forEach((n, i) => { this.$(`start-${n}`).value = String(settings.start[i]); });
    this.$("symmetry").checked = settings.symmetry;
  }

  isMichie(settings = this.settings) {
    return JSON.stringify(settings) === JSON.stringify(MICHIE);
  }

  async request(action, extra = {}) {
    const body = { seed: this.seed, settings: this.settings, log: this.log, action, ...extra };
    const answer = await postJSON(this.root.dataset.api || "/lesson/api/widget", body);
    this.log = answer.log;
    this.summary = answer;
    return answer;
  }

  async run(task) {
    if (this.busy) return;
    // The pressed button is disabled while the server answers, and a disabled button loses
    // the keyboard focus: remember it, and put the focus back where a keyboard user needs it.
    const pressed = document.activeElement;
    const fromHere = Boolean(pressed) && this.root.contains(pressed);
    this.setBusy(true);
    try {
      await task();
    } catch (error) {
      this.setStatus(say("somethingWrong", { message: error.message }));
    } finally {
      this.setBusy(false);
      this.updateSquares();
      if (fromHere && (focusLost() || this.root.contains(document.activeElement))) this.placeFocus(pressed);
    }
  }

  /** Your turn: an empty square; otherwise the control that was pressed, or Play 1 game. */
  placeFocus(pressed) {
    const active = document.activeElement;
    if (this.root.dataset.state === "your-turn") {
      if (!(this.squares.includes(active) && !active.disabled)) this.squares.find((b) => !b.disabled)?.focus();
    } else if (pressed && pressed.isConnected && !pressed.disabled && this.root.contains(pressed)) {
      if (active !== pressed) pressed.focus();
    } else if (focusLost()) {
      this.$("play-one").focus();
    }
  }

  start() {
    if (this.playingOn) this.stopPlayingOn(""); // a fresh MENACE is not the one that was playing on
    return this.run(async () => {
      const field = this.$("seed");
      const wanted = Number.parseInt(field.value, 10);
      this.seed = Number.isFinite(wanted) && wanted >= 0 ? wanted : Math.floor(Math.random() * 100000);
      field.value = String(this.seed);
      this.log = [];
      this.human = null;
      this.settings = this.readSettings();
      this.drawBoard(" ".repeat(9));
      this.$("cards").replaceChildren();
      await this.request(null);
      this.showSummary();
      this.root.dataset.state = "ready";
      const fresh = `${this.isMichie() ? "freshMichie" : "freshNumbers"}${this.opponent === "you" ? "You" : ""}`;
      this.setStatus(say(fresh, { seed: this.seed, settings: this.settingsWords() }));
      if (!this.$("box-panel").hidden) await this.loadBoxes();
      if (window.performance && performance.mark && !performance.getEntriesByName("menace-widget-ready").length) {
        performance.mark("menace-widget-ready"); // the browser test reports when the widget first answered
      }
    });
  }

  playOne() {
    if (this.opponent === "you") return this.startHumanGame();
    return this.run(async () => {
      this.human = null;
      const answer = await this.request({ type: "games", count: 1, opponent: this.opponent });
      await this.showGame(answer.game, true);
      this.showSummary();
      if (!this.$("box-panel").hidden) await this.loadBoxes();
    });
  }

  playMany(count) {
    if (this.opponent === "you") return undefined;
    return this.run(async () => {
      this.human = null;
      this.setStatus(say("playingMany", { count, opponent: this.opponentName() }));
      const answer = await this.request({ type: "games", count, opponent: this.opponent });
      await this.showGame(answer.game, false);
      this.showSummary();
      const t = answer.tallies;
      this.setStatus(say("playedMany", { count, opponent: this.opponentName() }));
      this.root.dataset.played = String(t.played);
      if (!this.$("box-panel").hidden) await this.loadBoxes();
    });
  }

  opponentName() {
    return say(OPPONENT_NAMES[this.opponent]);
  }

  settingsWords(settings = this.settings) {
    const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");
    return say(settings.symmetry ? "settingsOn" : "settingsOff",
      { rewards: settings.reward.map(signed).join("/"), start: settings.start.join("/") });
  }

  // -- playing on, at a chosen speed --------------------------------------------

  togglePlayOn() {
    if (this.playingOn) {
      this.stopPlayingOn(say("stopped"));
      return undefined;
    }
    if (this.opponent === "you" || this.busy) return undefined;
    this.playingOn = true;
    this.$("play-on").setAttribute("aria-pressed", "true");
    this.$("play-on").textContent = say("buttonStop");
    this.setBusy(false);
    return this.playOnLoop();
  }

  stopPlayingOn(message) {
    this.playingOn = false;
    this.$("play-on").setAttribute("aria-pressed", "false");
    this.$("play-on").textContent = say("buttonPlayOn");
    this.setBusy(this.busy);
    if (message) this.setStatus(message);
  }

  /** Games at the chosen speed until Stop: a few a request when fast, each shown as it ends. */
  async playOnLoop() {
    while (this.playingOn) {
      const speed = Number(this.$("speed").value) || 20;
      const count = Math.max(1, Math.min(Math.round(speed / 5), MAX_GAMES - this.played()));
      if (this.played() >= MAX_GAMES) {
        this.stopPlayingOn(say("playedMost", { n: MAX_GAMES }));
        return;
      }
      const began = performance.now();
      this.busy = true;
      this.root.setAttribute("aria-busy", "true");
      try {
        const answer = await this.request({ type: "games", count, opponent: this.opponent });
        await this.showGame(answer.game, false);
        this.showSummary();
        if (!this.$("box-panel").hidden) await this.loadBoxes();
        const pace = speed >= 200 ? say("paceFastest") : sayN("pace", speed);
        const played = answer.tallies.played;
        this.setStatus(this.playingOn
          ? say("playingOn", { opponent: this.opponentName(), pace, played })
          : say("stoppedAfter", { played }));
      } catch (error) {
        this.stopPlayingOn(say("stoppedBecause", { message: error.message }));
        this.setBusy(false);
        return;
      }
      // Stop may have been pressed while these games were played: setBusy gives the buttons back then.
      this.setBusy(false);
      const wanted = (1000 * count) / speed - (performance.now() - began);
      await sleep(Math.max(speed >= 200 ? 0 : 10, wanted));
    }
  }

  played() {
    return this.summary ? this.summary.tallies.played : 0;
  }

  opponentChanged() {
    if (this.playingOn && this.opponent === "you") this.stopPlayingOn("");
    this.human = null;
    this.setBusy(false);
    this.updateSquares();
    this.setStatus(this.opponent === "you"
      ? say("oIsYou")
      : this.opponent === "menace" ? say("oIsMenace") : say("oIsOther", { opponent: this.opponentName() }));
  }

  // -- a game against you ----------------------------------------------------

  startHumanGame() {
    if (this.busy) return undefined;
    this.root.dataset.state = "starting";
    return this.run(async () => {
      this.human = [];
      this.$("cards").replaceChildren();
      this.drawBoard(" ".repeat(9));
      const answer = await this.request({ type: "human", moves: [] });
      await this.showHumanStep(answer.game, 0);
    });
  }

  humanMove(square) {
    if (!this.human || this.busy) return;
    const button = this.squares[square];
    if (button.dataset.mark) return;
    return this.run(async () => {
      const shownMoves = this.currentMoves.length;
      this.human = [...this.human, square];
      const answer = await this.request({ type: "human", moves: this.human });
      await this.showHumanStep(answer.game, shownMoves);
    });
  }

  async showHumanStep(game, alreadyShown) {
    this.currentMoves = game.moves;
    await this.playMoves(game, alreadyShown, true);
    if (game.result) {
      this.human = null;
      this.finishGame(game);
      this.showSummary();
      if (!this.$("box-panel").hidden) await this.loadBoxes();
    } else {
      this.setStatus(say("yourMove", { square: squareName(game.moves[game.moves.length - 1].square) }));
      this.root.dataset.state = "your-turn"; // run() then puts the keyboard focus on the board
    }
  }

  arrowKeys(event, index) {
    arrowKey(event, this.squares, index);
  }

  // -- showing a game --------------------------------------------------------

  drawBoard(board, ringed = null) {
    drawSquares(this.squares, board, ringed);
  }

  updateSquares() {
    const yourTurn = Boolean(this.human) && !this.busy;
    this.squares.forEach((button) => {
      button.disabled = !(yourTurn && !button.dataset.mark);
    });
    this.root.classList.toggle("your-turn", yourTurn);
  }

  async playMoves(game, from, animate) {
    const board = Array(9).fill(" ");
    const cards = this.$("cards");
    if (from === 0) {
      cards.replaceChildren();
      this.drawBoard(board.join("")); // a game MENACE resigns at once leaves an empty board, not the last one
    }
    for (let i = 0; i < from && i < game.moves.length; i += 1) board[game.moves[i].square] = game.moves[i].mark;
    for (let i = from; i < game.moves.length; i += 1) {
      const move = game.moves[i];
      const index = game.cards.findIndex((c) => c.move === i);
      if (index >= 0) {
        // The +3/+1/−1 badge comes when the game ends (finishGame), not while it is played.
        const { change: _badgeLater, ...playing } = game.cards[index]; // eslint-disable-line no-unused-vars
        cards.append(card(playing, index));
        if (animate) {
          this.setStatus(say("opensBox", { beads: describeBeads(game.cards[index].beads) }));
          await sleep(this.delay);
        }
      }
      board[move.square] = move.mark;
      this.drawBoard(board.join(""), move.square);
      if (animate && i < game.moves.length - 1) await sleep(this.delay);
    }
    if (game.resigned && game.result) cards.append(resignedCard(game.resigned));
    this.currentMoves = game.moves;
  }

  async showGame(game, animate) {
    this.human = null;
    this.root.dataset.state = "playing";
    await this.playMoves(game, 0, animate);
    this.finishGame(game);
  }

  finishGame(game) {
    const items = Array.from(this.$("cards").querySelectorAll(".card[data-move]"));
    game.cards.forEach((data, index) => {
      if (items[index] && data.change !== undefined) showChange(items[index], data);
    });
    const words = { win: "resultWin", draw: "resultDraw", loss: game.resigned ? "resultResigned" : "resultLoss" };
    this.setStatus(say(words[game.result]));
    this.root.dataset.state = "over";
    this.root.dataset.result = game.result;
  }

  // -- the chart, the tallies, the boxes ----------------------------------------

  showSummary() {
    const s = this.summary;
    drawChart(this.$("chart"), s.results, s.segments);
    const t = s.tallies;
    const recent = s.results.slice(-50);
    const count = (letter) => recent.split("").filter((r) => r === letter).length;
    const lines = [
      el("p", { class: "tally-main" }, el("strong", {}, sayN("gamesPlayed", t.played)),
        say("tally", { won: t.won, drawn: t.drawn, lost: t.lost })),
      el("p", {}, say("boxesOpened", { n: t.boxes })),
    ];
    if (t.played > 50) lines.push(el("p", {}, say("lastFifty", { won: count("w"), drawn: count("d"), lost: count("l") })));
    if (s.first_box) {
      const beads = Object.fromEntries(Object.entries(s.first_box));
      lines.push(el("div", { class: "first-box" },
        el("span", {}, say("firstBoxNow")), miniBoard(" ".repeat(9), beads),
        el("span", { class: "visually-hidden" }, describeBeads(beads))));
    }
    if (t.o_boxes) lines.push(el("p", {}, say("oBoxesOpened", { n: t.o_boxes })));
    lines.push(el("p", { class: "note" }, this.isMichie() ? say("seedNote", { seed: s.seed })
      : say("seedSettingsNote", { seed: s.seed, settings: this.settingsWords() })));
    this.$("tallies").replaceChildren(...lines);
    this.showCommand();
    this.root.dataset.played = String(t.played);
  }

  /** The terminal command that plays these same games, when there is one (one opponent, no person). */
  showCommand() {
    const target = this.$("terminal-command");
    const segments = this.summary.segments;
    if (!segments.length || segments.length > 1 || segments[0].opponent === "you") {
      target.textContent = segments.length > 1 ? say("noCommand") : "";
      return;
    }
    const options = [`--seed ${this.seed}`, `--opponent ${segments[0].opponent}`, `--games ${this.played()}`];
    if (this.settings.reward.join() !== MICHIE.reward.join()) options.push(`--reward ${this.settings.reward.join("/")}`);
    if (this.settings.start.join() !== MICHIE.start.join()) options.push(`--start ${this.settings.start.join("/")}`);
    if (!this.settings.symmetry) options.push("--no-symmetry");
    target.replaceChildren(say("inATerminal"), el("code", {}, `menace experiment games ${options.join(" ")}`));
  }

  async toggleBoxes() {
    const panel = this.$("box-panel");
    const button = this.$("show-boxes");
    const open = panel.hidden;
    panel.hidden = !open;
    button.setAttribute("aria-expanded", open ? "true" : "false");
    if (open) await this.run(() => this.loadBoxes());
  }

  async loadBoxes() {
    const answer = await postJSON(this.root.dataset.api || "/lesson/api/widget",
      { seed: this.seed, settings: this.settings, log: this.log, boxes: true });
    showBoxes(this.$("box-list"), this.$("o-box-list"), answer);
  }
}
