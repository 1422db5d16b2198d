"""A class and its teacher: a learner who joins a class sends a copy of their
events (visits, tasks, quiz answers) to the class's database; the teacher's
page reads them. store.py, events.py and report.py know nothing of Streamlit.
"""
