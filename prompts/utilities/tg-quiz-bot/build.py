"""Builds the quiz: dist/quiz.json, the Telegram quiz polls /quiz posts."""
import json
import os
import sys


def build(config):
    polls = []
    for number, item in enumerate(config["questions"], 1):
        options = item["options"]
        answer = item["answer"]
        if not 0 <= answer < len(options):
            raise SystemExit(
                "question %d: answer %d is not one of its %d options" % (number, answer, len(options))
            )
        if len(set(options)) != len(options):
            raise SystemExit("question %d: two options are the same" % number)
        polls.append({
            "type": "quiz",
            "question": item["question"],
            "options": options,
            "correct_option_id": answer,
            "explanation": item.get("explanation", ""),
            "is_anonymous": False,
        })
    return {"command": "/quiz", "title": config["title"], "polls": polls}


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        config = json.load(f)
    os.makedirs("dist", exist_ok=True)
    with open("dist/quiz.json", "w", encoding="utf-8") as f:
        json.dump(build(config), f, ensure_ascii=False, indent=2)
    print("built dist/quiz.json: %d question(s)" % len(config["questions"]))


if __name__ == "__main__":
    main()
