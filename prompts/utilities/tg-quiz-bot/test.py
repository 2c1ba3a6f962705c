"""Checks dist/quiz.json against the config and Telegram's quiz-poll rules."""
import json
import sys
import unittest

CONFIG = sys.argv.pop(1) if len(sys.argv) > 1 else "config.json"


class Quiz(unittest.TestCase):
    def setUp(self):
        with open(CONFIG, encoding="utf-8") as f:
            self.config = json.load(f)
        with open("dist/quiz.json", encoding="utf-8") as f:
            self.quiz = json.load(f)

    def test_every_question_becomes_one_poll(self):
        self.assertEqual(len(self.quiz["polls"]), len(self.config["questions"]))
        self.assertEqual(self.quiz["command"], "/quiz")

    def test_each_poll_fits_telegram_quiz_limits(self):
        for poll in self.quiz["polls"]:
            self.assertEqual(poll["type"], "quiz")
            self.assertTrue(1 <= len(poll["question"]) <= 300)
            self.assertTrue(2 <= len(poll["options"]) <= 10)
            for option in poll["options"]:
                self.assertTrue(1 <= len(option) <= 100)
            self.assertLessEqual(len(poll["explanation"]), 200)

    def test_the_right_answer_is_one_of_the_options(self):
        for poll, item in zip(self.quiz["polls"], self.config["questions"]):
            self.assertIn(poll["correct_option_id"], range(len(poll["options"])))
            self.assertEqual(poll["options"][poll["correct_option_id"]], item["options"][item["answer"]])


if __name__ == "__main__":
    unittest.main(verbosity=2)
