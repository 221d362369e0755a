// A character list with every kind of escape nvcc writes: quotes, backslash,
// control characters, octal bytes (UTF-8 'é'), a '\000' inside the text and
// the array's trailing ones. Its error line, through the launcher, must be
// exactly the one check_launcher.sh expects.
template <unsigned N>
struct text {
  char chars[N]{};
  constexpr text(const char (&s)[N]) {
    for (unsigned i = 0; i < N; ++i) chars[i] = s[i];
  }
};

template <text T>
struct shown {
  static_assert(T.chars[0] == 0, "escapes");
};

shown<text("q'\"\\ \t\n\x01\x7f\xc3\xa9 \0 z")> instance;
