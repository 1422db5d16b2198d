"""The teacher's page: create a class, or open one with its passcode, and
watch where the class is (the page itself is course_app.classroom.teacher)."""

from course_app import page_start, teacher_page


def main() -> None:
    page_start("teacher")
    teacher_page()
