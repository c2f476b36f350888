package org.example.textkit;

public final class Plural {

    public static String of(String noun, int count) {
        if (count == 1) {
            return noun;
        } else {
            return noun + "s";
        }
    }
}
