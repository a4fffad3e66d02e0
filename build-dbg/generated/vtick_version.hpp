#pragma once
#define VTICK_VERSION "0.1.0"
#define VTICK_GIT_REV "2ebc93f02100"
