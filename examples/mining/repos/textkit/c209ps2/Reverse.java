package org.example.textkit;

public final class Reverse {

    public static String of(String s) {
        return new StringBuilder(s).reverse().toString();
    }
}
