// The board under Step 3: a game against Step 3's MENACE after its 300 games.
//
// The server plays MENACE's moves with the program's choose_move (POST /lesson/api/trained):
// the browser sends the game's number and O's squares so far, and draws what comes back.
// Nothing is learned, so every game starts from the same boxes; game n draws with seed n.

import { postJSON } from "./api.js";
import { drawSquares } from "./board.js";
import { arrowKey } from "./keys.js";
import { say, squareName } from "./words.js";

const RESULT_WORDS = { win: "trainedWin", draw: "trainedDraw", loss: "trainedLoss" };

export class TrainedBoard {
  constructor(root) {
    this.root = root;
    this.squares = Array.from(root.querySelectorAll(".square"));
    this.status = root.querySelector("#trained-status");
    this.score = root.querySelector("#trained-score");
    this.newGame = root.querySelector("#trained-new");
    this.game = 0;
    this.moves = null; // O's squares in the game now being played, or null between games
    this.tally = { win: 0, draw: 0, loss: 0 };
    this.newGame.addEventListener("click", () => this.start());
    this.squares.forEach((button) => button.addEventListener("click", () => this.play(Number(button.dataset.square))));
    this.squares.forEach((button, index) => button.addEventListener("keydown", (event) => this.arrowKeys(event, index)));
  }

  async start() {
    this.game += 1;
    this.moves = [];
    this.draw(" ".repeat(9), null);
    await this.ask();
  }

  async play(square) {
    if (!this.moves || this.root.dataset.state !== "your-turn" || this.squares[square].dataset.mark) return;
    this.moves = [...this.moves, square];
    await this.ask();
  }

  async ask() {
    this.root.dataset.state = "waiting";
    this.root.setAttribute("aria-busy", "true");
    this.enable(false);
    try {
      const answer = await postJSON(this.root.dataset.api, { game: this.game, moves: this.moves });
      const last = answer.moves.length ? answer.moves[answer.moves.length - 1] : null;
      this.draw(answer.board, last);
      if (answer.result) {
        this.moves = null;
        this.tally[answer.result] += 1;
        this.status.textContent = say(RESULT_WORDS[answer.result]);
        this.score.textContent = say("trainedScore", { won: this.tally.win, drew: this.tally.draw, lost: this.tally.loss });
        this.root.dataset.state = "over";
        this.root.dataset.result = answer.result;
        this.newGame.focus();
      } else {
        this.status.textContent = say("yourMove", { square: squareName(last) });
        this.root.dataset.state = "your-turn";
        this.enable(true);
        this.squares.find((b) => !b.disabled)?.focus();
      }
    } catch (error) {
      this.status.textContent = say("somethingWrong", { message: error.message });
      this.root.dataset.state = "over";
    } finally {
      this.root.setAttribute("aria-busy", "false");
    }
  }

  draw(board, ringed) {
    drawSquares(this.squares, board, ringed);
  }

  enable(yourTurn) {
    this.squares.forEach((button) => { button.disabled = !(yourTurn && !button.dataset.mark); });
    this.root.classList.toggle("your-turn", yourTurn);
  }

  arrowKeys(event, index) {
    arrowKey(event, this.squares, index);
  }
}
